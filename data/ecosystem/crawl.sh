#!/usr/bin/env bash
# Both capture passes of the ecosystem survey, server by server, so each
# install is freed as soon as its second pass has captured it; between them
# the latest captured release is listed again with the official SDK client
# (bench/sdk_check.py). Resumable: a release already captured in a pass is
# skipped. Run it from a checkout of its own (the crawl takes hours).
#
#   JOBS=3 MCPDELTA=.venv/bin/mcpdelta nohup bash data/ecosystem/crawl.sh data/servers/ecosystem.yaml /work/eco-run/out \
#       > /work/eco-run/run.log 2>&1 &
#   python data/ecosystem/pack.py /work/eco-run/out/a data/ecosystem/captures
#   python data/ecosystem/pack.py /work/eco-run/out/b data/ecosystem/captures-b
#   cp /work/eco-run/out/sdk-check.tsv data/ecosystem/sdk-check.tsv
set -u
servers=${1:?servers file}; out=${2:?output folder}
bin=${MCPDELTA:-mcpdelta}
jobs=${JOBS:-2}  # installs wait on the registry more than on the CPU
export MCPDELTA_DUMMY_TOKEN=${MCPDELTA_DUMMY_TOKEN:-mcpdelta-dummy-not-a-secret}
export PUPPETEER_SKIP_DOWNLOAD=1 PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
mkdir -p "$out"
ids=$(python3 -c 'import sys, yaml; print("\n".join(s["id"] for s in yaml.safe_load(open(sys.argv[1]))["servers"]))' "$servers")
for id in $ids; do
  echo "== $(date -u +%FT%TZ) $id"
  "$bin" crawl --servers "$servers" --out "$out/a" --cache "$out/cache" --only "$id" --concurrency "$jobs"
  # 130/143: the crawl was stopped; a second pass now would log every release
  # as missing from the cache.
  rc=$?; case $rc in 130|143) exit $rc;; esac
  # the latest release again with the official SDK client, while it is installed
  "$(dirname "$bin")/python" "$(dirname "$0")/../../bench/sdk_check.py" "$servers" "$out/a" "$out/sdk-check.tsv" \
      --cache "$out/cache" --only "$id"
  "$bin" crawl --servers "$servers" --out "$out/b" --cache "$out/cache" --only "$id" --concurrency "$jobs" --offline \
      --client-name mcpdelta-survey-second-pass --client-version 0.0.2 --release-installs
done
echo "== $(date -u +%FT%TZ) done"

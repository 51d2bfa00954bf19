#!/usr/bin/env bash
# Both capture passes of the ecosystem survey, server by server, so each
# install is freed as soon as its second pass has captured it; between them
# the latest captured release is listed again with the official SDK client
# (bench/sdk_check.py). Run it from a checkout of its own (it takes hours):
#
#   RUNNERS=2 JOBS=3 MCPDELTA=.venv/bin/mcpdelta nohup bash data/ecosystem/crawl.sh \
#       data/servers/ecosystem.yaml /work/eco-run/out > /work/eco-run/run.log 2>&1 &
#   python data/ecosystem/pack.py /work/eco-run/out data/ecosystem --plan data/servers/ecosystem.yaml  # commit what came so far
#   pkill -TERM -f 'crawl.sh data/servers/ecosystem.yaml'                # stop: resumable
#
# Resumable: a server both passes finished is marked in OUT/done and skipped
# (delete its marker to try its failed releases again), and within a server
# a release already captured in a pass is skipped. RUNNERS crawls that many
# servers at once, each runner into its own folders (OUT/a and OUT/b for the
# first, OUT/runner-K/ for the others) so no two processes append to one
# log; a server is claimed by one runner (OUT/claims) before it starts.
set -u
servers=${1:?servers file}; out=${2:?output folder}
bin=${MCPDELTA:-mcpdelta}
jobs=${JOBS:-2}        # captures per runner (installs run limits.install_concurrency at a time, ahead)
runners=${RUNNERS:-1}
check="$(dirname "$0")/../../bench/sdk_check.py"
export MCPDELTA_DUMMY_TOKEN=${MCPDELTA_DUMMY_TOKEN:-mcpdelta-dummy-not-a-secret}
export PUPPETEER_SKIP_DOWNLOAD=1 PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
server_ids() { python3 -c 'import sys, yaml; print("\n".join(s["id"] for s in yaml.safe_load(open(sys.argv[1]))["servers"]))' "$servers"; }
ids=$(server_ids)
rm -rf "$out/claims"   # claims of a stopped run: no runner of this one holds them
mkdir -p "$out/done" "$out/claims"

runner() {  # runner K: the servers nobody has done or claimed, into its own folders
  local k=$1 dir id rc
  dir=$out; [ "$k" -gt 1 ] && dir=$out/runner-$k
  for id in $ids; do
    [ -e "$out/done/$id" ] && continue
    # the servers file may be edited while this runs (each crawl reads it):
    # a server excluded since is passed over, not an error that ends the runner
    server_ids | grep -xF -- "$id" >/dev/null || continue  # not -q: the lister would die of a closed pipe
    mkdir "$out/claims/$id" 2>/dev/null || continue
    echo "== $(date -u +%FT%TZ) [$k] $id"
    "$bin" crawl --servers "$servers" --out "$dir/a" --cache "$out/cache" --only "$id" --concurrency "$jobs"
    # 0: all captured, 1: some failed (each logged); anything else (130/143 the
    # crawl was stopped, 127 no mcpdelta) and a second pass now would log every
    # release as missing from the cache
    rc=$?; case $rc in 0|1) ;; *) return $rc;; esac
    "$(dirname "$bin")/python" "$check" "$servers" "$dir/a" "$dir/sdk-check.tsv" --cache "$out/cache" --only "$id"
    "$bin" crawl --servers "$servers" --out "$dir/b" --cache "$out/cache" --only "$id" --concurrency "$jobs" --offline \
        --client-name mcpdelta-survey-second-pass --client-version 0.0.2 --release-installs
    rc=$?; case $rc in 0|1) ;; *) return $rc;; esac
    touch "$out/done/$id"
  done
}

# a stop reaches this run's crawls (each ends its servers, exits 143, and its runner returns)
trap 'pkill -TERM -f -- "--cache $out/cache"; wait' TERM INT
for k in $(seq 1 "$runners"); do
  runner "$k" &
  sleep 2   # the next runner starts on the next server
done
wait
echo "== $(date -u +%FT%TZ) done"

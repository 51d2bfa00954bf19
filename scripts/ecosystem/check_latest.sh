#!/bin/sh
# Crawl the latest planned release of each server (or of the ids given),
# most popular first, two at a time, each bounded in time and in its own
# package cache:
#   sh scripts/ecosystem/check_latest.sh [ID...]     (from the repository root)
# A server already captured in $CHECK is skipped (REDO=1 crawls it again).
# A good capture's install is removed at once (disk stays bounded); a failed
# one's is kept so a recipe fix re-runs without reinstalling (CLEAN=1 removes
# it too). Then `python -m scripts.ecosystem.classify check /tmp/eco-check/*/`
# records the results in data/ecosystem/checks.tsv.
set -u
CHECK=${CHECK:-/tmp/eco-check}
export CHECK REDO=${REDO:-0} CLEAN=${CLEAN:-0}
export MCPDELTA_DUMMY_TOKEN=mcpdelta-dummy-not-a-secret
export PUPPETEER_SKIP_DOWNLOAD=1 PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 ONNXRUNTIME_NODE_INSTALL_CUDA=skip
YAML="$CHECK/yaml-$$"
mkdir -p "$CHECK/log" "$CHECK/cache"
.venv/bin/python -m scripts.ecosystem.classify latest "$YAML" "$@" > "$YAML.list" || exit 2
# each server's file is written again just before its crawl: recipe fixes
# (classify.py build) made while the run goes on are used
xargs -P 2 -I{} sh -c '
  id=$(basename "$1" .yaml)
  if [ "$REDO" != 1 ] && grep -q "\"ok\": true" "$CHECK/$id/crawl-log.jsonl" 2>/dev/null; then exit 0; fi
  .venv/bin/python -m scripts.ecosystem.classify latest "$(dirname "$1")" "$id" > /dev/null
  rm -rf "$CHECK/$id"
  timeout 600 nice .venv/bin/mcpdelta crawl --servers "$1" --out "$CHECK/$id" --cache "$CHECK/cache/$id" \
    > "$CHECK/log/$id.log" 2>&1
  code=$?
  if grep -q "\"ok\": true" "$CHECK/$id/crawl-log.jsonl" 2>/dev/null || [ "$CLEAN" = 1 ]; then
    rm -rf "$CHECK/cache/$id"
  fi
  echo "$id exit $code"' sh {} < "$YAML.list"
rm -rf "$YAML" "$YAML.list"

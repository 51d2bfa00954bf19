#!/bin/sh
# Crawl the latest planned release of each server (or of the ids given),
# two at a time, each bounded in time and in its own package cache:
#   sh data/ecosystem/check_latest.sh [ID...]     (from the repository root)
# A good capture's install is removed at once (disk stays bounded); a failed
# one's is kept so a recipe fix re-runs without reinstalling (CLEAN=1 removes
# it too). Then `python data/ecosystem/classify.py check /tmp/eco-check/*/`
# records the results in data/ecosystem/checks.tsv.
set -u
CHECK=${CHECK:-/tmp/eco-check}
export MCPDELTA_DUMMY_TOKEN=mcpdelta-dummy-not-a-secret
export PUPPETEER_SKIP_DOWNLOAD=1 PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
rm -rf "$CHECK/yaml" && .venv/bin/python data/ecosystem/classify.py latest "$CHECK/yaml" "$@" || exit 2
ls "$CHECK"/yaml/*.yaml | xargs -P 2 -I{} sh -c '
  id=$(basename "{}" .yaml)
  rm -rf "$0/$id"
  timeout 600 nice .venv/bin/mcpdelta crawl --servers "{}" --out "$0/$id" --cache "$0/cache/$id" \
    > "$0/log/$id.log" 2>&1
  code=$?
  if grep -q "\"ok\": true" "$0/$id/crawl-log.jsonl" 2>/dev/null || [ "${CLEAN:-0}" = 1 ]; then
    rm -rf "$0/cache/$id"
  fi
  echo "$id exit $code"' "$CHECK"

#!/usr/bin/env bash
# Regenerates benches/report_demo.png, the README's screenshot of `sebx report` on the
# bundled demo (its training run and both evaluation runs), with headless Chromium
# (`apt-get install chromium`). Run from anywhere: bash benches/report_screenshot.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cargo build --quiet
# A score cache of its own, so the page says what a first run on this machine says.
SEBX_SCORE_CACHE="$work/scores" SEBX_TRACE_CACHE="$work/traces" ./target/debug/sebx report \
  samples/demo/training/rollout samples/demo/rollouts.jsonl samples/demo/rollouts_run2.jsonl \
  samples/demo/rollouts.scored.jsonl samples/demo/tasks.jsonl samples/demo/api_doc.jsonl \
  -q -o "$work/report.html"
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$work/profile" --hide-scrollbars --window-size=900,1500 \
  --screenshot="$PWD/benches/report_demo.png" "file://$work/report.html" 2>/dev/null
echo "wrote benches/report_demo.png"

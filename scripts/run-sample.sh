#!/usr/bin/env bash
# Installs what fxreplay needs, builds it, and renders the bundled sample call.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build -c release --product fxreplay >&2
mkdir -p out
.build/release/fxreplay render Samples/call.mp4 -o out/call-rendered.mp4 --overwrite --report out/call-report.json "$@"
echo "output: $(pwd)/out/call-rendered.mp4 (report: out/call-report.json)"

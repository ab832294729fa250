#!/usr/bin/env bash
# The README's and docs/calls.md's layout pictures (docs/layout-{grid,focus,pip,speaker}.png):
# the bundled sample call composed with its demo job in each layout, one frame read back at call
# time $AT (default 2.3 s: the Expert's portrait picture is in, and its chime makes it the speaker).
# FXREPLAY picks the binary (default: a debug build, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
at=${AT:-2.3}
fxreplay=${FXREPLAY:-.build/debug/fxreplay}
[[ -x $fxreplay ]] || swift build --product fxreplay
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for layout in grid focus pip speaker; do
  extra=()
  [[ $layout == speaker ]] && extra=(--highlight-speaker)
  "$fxreplay" compose --job Samples/call-archive.job.yaml Samples/call-archive.zip -o "$work/$layout.mp4" \
    --layout "$layout" --size 640x360 --crf 18 "${extra[@]}"
  ffmpeg -v error -ss "$at" -i "$work/$layout.mp4" -frames:v 1 -vf scale=480:-2 -y "docs/layout-$layout.png"
  echo "docs/layout-$layout.png" >&2
done

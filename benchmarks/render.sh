#!/usr/bin/env bash
# fxreplay render vs the ffmpeg CLI doing the same re-encode (libx264, same preset/CRF/threads, audio copied),
# on a 720p 30-second clip, ROUNDS rounds interleaved; prints median wall-time and peak-RSS ratios.
source "$(dirname "$0")/common.sh"
PRESET="${PRESET:-veryfast}" CRF="${CRF:-23}" THREADS="${THREADS:-0}"
build_release
CLIP="$BENCH_DIR/clip720p30s.mp4"
make_clip "$CLIP" 30
rm -f "$BENCH_DIR/times.txt"
for round in $(seq "$ROUNDS"); do
  measure fxreplay "$FX" render "$CLIP" -o "$BENCH_DIR/fx.mp4" --preset "$PRESET" --crf "$CRF" --threads "$THREADS" --progress none --overwrite
  measure ffmpeg ffmpeg -v error -y -i "$CLIP" -c:v libx264 -preset "$PRESET" -crf "$CRF" -threads "$THREADS" -c:a copy "$BENCH_DIR/ff.mp4"
done
echo "render, 720p 30 s, libx264 preset=$PRESET crf=$CRF threads=$THREADS"
summarize fxreplay ffmpeg

#!/usr/bin/env bash
# The annotations' CPU cost on a noisy host (#37: ≤ 1.10× CPU at veryfast): per round, the 20-annotation
# render of the camera-like clip by $FX and, when given, by $BEFORE (another fxreplay, e.g. a copy kept
# from before a change), then the plain render, back to back; per round the ratio of each to the plain
# one, so a swing of the host's load between rounds cancels. Prints the median of those ratios (and the
# ratio of the medians) over ROUNDS (default 9), by cpu_ratio. Uses the clip, poses and scene annotations.sh makes.
# SHAPES=1 adds the same scene without its labels each round: the labels' share (their text costs the
# encoder more than their drawing costs fxreplay) apart from the shapes'.
source "$(dirname "$0")/common.sh"
ROUNDS="${ROUNDS:-9}" PRESET="${PRESET:-veryfast}" CRF="${CRF:-23}"
build_release
CLIP="$BENCH_DIR/noisy720p30s.mp4" POSES="$BENCH_DIR/poses720p30s.jsonl" SCENE="$BENCH_DIR/annotations20.json"
for file in "$CLIP" "$POSES" "$SCENE"; do
  [ -f "$file" ] || { echo "no $file: run benchmarks/annotations.sh once first" >&2; exit 1; }
done
rm -f "$BENCH_DIR/times.txt" "$BENCH_DIR/cpu.txt"
names=(annotations); [ -n "${BEFORE:-}" ] && names+=(before)
SHAPES_SCENE="$BENCH_DIR/annotations20-shapes.json"
if [ "${SHAPES:-0}" = 1 ]; then
  names+=(shapes)
  python3 -c 'import json, sys
scene = json.load(open(sys.argv[1]))
for annotation in scene["annotations"]: annotation.pop("label", None)
json.dump(scene, open(sys.argv[2], "w"))' "$SCENE" "$SHAPES_SCENE"
fi
for round in $(seq "$ROUNDS"); do
  for name in "${names[@]}" plain; do
    bin="$FX"; scene=(--annotations "$SCENE")
    [ "$name" = before ] && bin="$BEFORE"
    [ "$name" = shapes ] && scene=(--annotations "$SHAPES_SCENE")
    [ "$name" = plain ] && scene=()
    timed "$name" "$bin" render "$CLIP" -o "$BENCH_DIR/fx-pairs.mp4" --poses "$POSES" "${scene[@]}" \
      --preset "$PRESET" --crf "$CRF" --progress none --overwrite
  done
done
echo "20 annotations vs none, camera-like clip, x264 $PRESET, $ROUNDS interleaved rounds (CPU time, user + sys):"
[ "${SHAPES:-0}" = 1 ] && echo "(shapes: the same 20 annotations without their labels)"
for name in "${names[@]}"; do cpu_ratio "$name" plain; done

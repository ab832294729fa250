#!/usr/bin/env bash
# Constant memory over time: renders a long 720p input (MINUTES, default 60; generated here, never
# committed) and samples resident memory once a second. Prints RSS at each tenth of the run and the
# peak; a flat profile means memory does not grow with the recording's length. Three runs side by
# side: fxreplay to MP4, fxreplay to Matroska, and the ffmpeg CLI doing the same re-encode to MP4.
# First, the memory each process lane adds (below).
# An MP4 muxer (FFmpeg's, in both programs) keeps an index entry for every sample until it writes
# the `moov` box at the end, so MP4 outputs grow with the length in both; Matroska writes its index
# only for keyframes, which shows the pipeline's own memory alone.
source "$(dirname "$0")/common.sh"
MINUTES="${MINUTES:-60}"
build_release

# sample NAME COMMAND...: runs it, recording "seconds rss_kib" once a second, then prints the profile.
sample() {
  local name="$1"; shift
  local samples="$BENCH_DIR/rss-$name.txt"
  : > "$samples"
  "$@" >/dev/null 2>&1 &
  local pid=$! start
  start=$(date +%s)
  while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$rss" ] && echo "$(( $(date +%s) - start )) $rss" >> "$samples"
    sleep 1
  done
  wait "$pid" || { echo "benchmark command failed: $*" >&2; exit 1; }
  python3 - "$samples" "$name" "$MINUTES" <<'PY'
import sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
if not rows: sys.exit("no samples")
end = rows[-1][0]
marks = [min(rows, key=lambda r: abs(r[0] - end * tenth / 10))[1] / 1024 for tenth in range(1, 11)]
steady = [r[1] for r in rows if r[0] >= end * 0.1]
print(f"{sys.argv[2]:<16} {sys.argv[3]} min in {end:4d} s; RSS (MiB) at each tenth: " + " ".join(f"{m:.0f}" for m in marks)
      + f"; peak {max(r[1] for r in rows)/1024:.0f}; growth after the first tenth {(max(steady) - min(steady))/1024:.0f} MiB")
PY
}

# Memory per process lane (#37 target 2): peak RSS of a 10-second 720p render with the 20-annotation
# scene and without, at --process-threads 1, 2 and 16 (one round each; peak RSS barely varies). Prints
# the annotated/plain ratio per lane count (target ≤ 1.15×), the lanes each render started (its
# report's processLanes: lanes stop at the cores, and drawing alone starts on one lane and adds lanes
# only while they hold the render back) and the bytes each started lane adds.
# LANES_ONLY=1 skips the long runs below.
LANE_CLIP="$BENCH_DIR/clip720p10s.mp4"
LANE_POSES="$BENCH_DIR/poses720p10s.jsonl"
LANE_SCENE="$BENCH_DIR/annotations20-10s.json"
make_clip "$LANE_CLIP" 10
python3 "$ROOT/benchmarks/scene20.py" "$LANE_POSES" "$LANE_SCENE" 300
rm -f "$BENCH_DIR/times.txt" "$BENCH_DIR/lanes.txt"
for lanes in 1 2 16; do
  measure "annotations-$lanes" "$FX" render "$LANE_CLIP" -o "$BENCH_DIR/lanes-annotations.mp4" --poses "$LANE_POSES" \
    --annotations "$LANE_SCENE" --process-threads "$lanes" --preset ultrafast --progress none --overwrite \
    --report "$BENCH_DIR/lanes-annotations.json"
  python3 -c 'import json, sys; print(sys.argv[2], json.load(open(sys.argv[1]))["processLanes"])' \
    "$BENCH_DIR/lanes-annotations.json" "$lanes" >> "$BENCH_DIR/lanes.txt"
  measure "plain-$lanes" "$FX" render "$LANE_CLIP" -o "$BENCH_DIR/lanes-plain.mp4" --poses "$LANE_POSES" \
    --process-threads "$lanes" --preset ultrafast --progress none --overwrite
done
python3 - "$BENCH_DIR/times.txt" "$BENCH_DIR/lanes.txt" "$(nproc)" <<'PY'
import sys
peak = {name: int(kib) * 1024 for name, _, kib in (line.split() for line in open(sys.argv[1]))}
started = {int(asked): int(lanes) for asked, lanes in (line.split() for line in open(sys.argv[2]))}
cores = int(sys.argv[3])
for lanes in (1, 2, 16):
    a, p = peak[f"annotations-{lanes}"], peak[f"plain-{lanes}"]
    print(f"--process-threads {lanes:2d} (at most {min(lanes, cores)} lanes on {cores} cores, {started[lanes]} started): "
          f"peak RSS {a / 2**20:.0f} MiB with 20 annotations, {p / 2**20:.0f} MiB without, ratio {a / p:.2f}x")
# (--process-threads 1 runs no lanes: one thread, with deeper queues beside it, so per lane is
# taken between the two runs with lanes, when they started different numbers.)
if started[16] != started[2]:
    print(f"bytes per started lane (annotations, {started[2]} to {started[16]} lanes): "
          f"{(peak['annotations-16'] - peak['annotations-2']) / (started[16] - started[2]):.0f}")
else:
    print(f"--process-threads 2 and 16 both started {started[2]} lanes: no bytes per lane to compare")
PY
[ "${LANES_ONLY:-0}" = 1 ] && exit 0

LONG="$BENCH_DIR/long-${MINUTES}min-720p.mp4"
if [ ! -f "$LONG" ]; then
  echo "generating a ${MINUTES}-minute 720p input…" >&2
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=1280x720:rate=30" -f lavfi -i "sine=frequency=440:sample_rate=48000" \
    -t "$((MINUTES * 60))" -c:v libx264 -preset ultrafast -crf 28 -pix_fmt yuv420p -c:a aac -b:a 64k -shortest "$LONG"
fi

sample fxreplay-mp4 "$FX" render "$LONG" -o "$BENCH_DIR/long-out.mp4" --preset ultrafast --overwrite --progress none
sample fxreplay-mkv "$FX" render "$LONG" -o "$BENCH_DIR/long-out.mkv" --preset ultrafast --overwrite --progress none
sample ffmpeg-mp4 ffmpeg -v error -y -i "$LONG" -map 0 -c:v libx264 -preset ultrafast -crf 23 -c:a copy "$BENCH_DIR/long-ffmpeg.mp4"

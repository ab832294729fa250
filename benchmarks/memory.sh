#!/usr/bin/env bash
# Constant memory over time: renders a long 720p input (MINUTES, default 60; generated here, never
# committed) and samples the renderer's resident memory once a second. Prints RSS at each tenth of the
# run and the peak; a flat profile means memory does not grow with the recording's length.
source "$(dirname "$0")/common.sh"
MINUTES="${MINUTES:-60}"
build_release
LONG="$BENCH_DIR/long-${MINUTES}min-720p.mp4"
if [ ! -f "$LONG" ]; then
  echo "generating a ${MINUTES}-minute 720p input…" >&2
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=1280x720:rate=30" -f lavfi -i "sine=frequency=440:sample_rate=48000" \
    -t "$((MINUTES * 60))" -c:v libx264 -preset ultrafast -crf 28 -pix_fmt yuv420p -c:a aac -b:a 64k -shortest "$LONG"
fi
samples="$BENCH_DIR/rss-samples.txt"
: > "$samples"
"$FX" render "$LONG" -o "$BENCH_DIR/long-out.mp4" --preset ultrafast --overwrite --progress none &
pid=$!
start=$(date +%s)
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$rss" ] && echo "$(( $(date +%s) - start )) $rss" >> "$samples"
  sleep 1
done
wait "$pid"
python3 - "$samples" "$MINUTES" <<'PY'
import sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
if not rows: sys.exit("no samples")
end = rows[-1][0]
print(f"{sys.argv[2]}-minute 720p render took {end} s; resident memory (MiB) at each tenth of the run:")
marks = []
for tenth in range(1, 11):
    t = end * tenth / 10
    marks.append(min(rows, key=lambda r: abs(r[0] - t))[1] / 1024)
print("  " + "  ".join(f"{m:.0f}" for m in marks))
steady = [r[1] for r in rows if r[0] >= end * 0.1]
print(f"peak {max(r[1] for r in rows)/1024:.0f} MiB; after the first tenth: min {min(steady)/1024:.0f}, max {max(steady)/1024:.0f} MiB")
PY

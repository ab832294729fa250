#!/usr/bin/env bash
# What a batch costs per job beyond the rendering itself: COUNT tiny renders (320x240, 1 s) with
# fxreplay batch -j JOBS vs `xargs -P JOBS ffmpeg`, wall and CPU per job; and one process's
# fixed cost (start-up to first frame, last frame to exit) as a one-frame render, fxreplay vs ffmpeg;
# and, from the last batch's report, the time its slots spent outside any render, per job.
#   ROUNDS=5 COUNT=16 JOBS=2 benchmarks/batch-overhead.sh
source "$(dirname "$0")/common.sh"
COUNT="${COUNT:-16}" JOBS="${JOBS:-2}"
build_release
IN="$BENCH_DIR/overhead-in"
mkdir -p "$IN" "$BENCH_DIR/overhead-ffmpeg"
tiny="$BENCH_DIR/tiny320x240.mp4" one="$BENCH_DIR/one-frame.mp4"
[ -f "$tiny" ] || ffmpeg -v error -y -f lavfi -i "testsrc2=size=320x240:rate=30" -f lavfi -i "sine=sample_rate=48000" \
  -t 1 -c:v libx264 -preset veryfast -pix_fmt yuv420p -c:a aac -shortest "$tiny"
[ -f "$one" ] || ffmpeg -v error -y -f lavfi -i "testsrc2=size=320x240:rate=30" -frames:v 1 -c:v libx264 -pix_fmt yuv420p "$one"
for i in $(seq "$COUNT"); do cp -n "$tiny" "$IN/tiny$i.mp4"; done
ffmpeg_one() { ffmpeg -v error -nostdin -y -i "$1" -c:v libx264 -c:a copy -movflags +faststart "$2/$(basename "$1")"; }
export -f ffmpeg_one
rm -f "$BENCH_DIR/overhead-times.txt"

# run NAME COMMAND...: appends "NAME wall cpu" (seconds; CPU of the whole process tree).
run() {
  local name="$1"; shift
  /usr/bin/time -f "$name %e %U %S" -a -o "$BENCH_DIR/overhead-times.txt" "$@" >/dev/null 2>&1 \
    || { echo "benchmark command failed: $*" >&2; exit 1; }
}
for round in $(seq "$ROUNDS"); do
  run batch "$FX" batch "$IN/*.mp4" --out "$BENCH_DIR/overhead-batch" -j "$JOBS" --force --progress none
  run xargs bash -c "ls '$IN'/*.mp4 | xargs -P $JOBS -I{} bash -c 'ffmpeg_one \"\$1\" $BENCH_DIR/overhead-ffmpeg' _ {}"
  run render1 "$FX" render "$one" -o "$BENCH_DIR/one-fx.mp4" --overwrite --progress none
  run ffmpeg1 ffmpeg -v error -nostdin -y -i "$one" -c:v libx264 -movflags +faststart "$BENCH_DIR/one-ff.mp4"
done

echo "$COUNT renders of 320x240 1 s clips, -j $JOBS, $(nproc) cores, $ROUNDS rounds (medians)"
python3 - "$BENCH_DIR/overhead-times.txt" "$COUNT" "$JOBS" "$BENCH_DIR/overhead-batch/batch-report.json" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, wall, user, system = line.split()
    rows.setdefault(name, []).append((float(wall), float(user) + float(system)))
count, jobs = int(sys.argv[2]), int(sys.argv[3])
def med(name, i): return statistics.median(run[i] for run in rows[name])
def ratio(a, b, i): return statistics.median(x[i] / y[i] for x, y in zip(rows[a], rows[b]))
print(f"per job: fxreplay batch {1000 * med('batch', 0) / count:.0f} ms wall, {1000 * med('batch', 1) / count:.0f} ms CPU; "
      f"xargs + ffmpeg {1000 * med('xargs', 0) / count:.0f} ms wall, {1000 * med('xargs', 1) / count:.0f} ms CPU; "
      f"ratio wall {ratio('batch', 'xargs', 0):.2f}x, CPU {ratio('batch', 'xargs', 1):.2f}x")
print(f"one-frame render (start-up to first frame + last frame to exit): fxreplay {1000 * med('render1', 0):.0f} ms wall, "
      f"{1000 * med('render1', 1):.0f} ms CPU; ffmpeg {1000 * med('ffmpeg1', 0):.0f} ms wall, {1000 * med('ffmpeg1', 1):.0f} ms CPU; "
      f"ratio wall {ratio('render1', 'ffmpeg1', 0):.2f}x")
report = json.load(open(sys.argv[4]))
rendering = sum(entry["seconds"] for entry in report["recordings"])
print(f"batch slots outside any render (planning, child exit to next start, the tail): "
      f"{1000 * (report['wallSeconds'] * report['jobs'] - rendering) / count:.0f} ms per job")
PY

#!/usr/bin/env bash
# fxreplay batch vs the same renders by `xargs -P N ffmpeg` (same preset, THREADS encoder threads,
# audio copied, faststart), and vs fxreplay render one recording after another (SEQUENTIAL=0 skips it):
# COUNT short 720p recordings (SECONDS_EACH s each, libx264 PRESET), once per configuration.
# Reports wall time, speed-up over the sequential renders, and peak memory of the whole
# process tree (the batch and all its renders together, sampled from /proc every 50 ms:
# GNU time's %M would only show the largest single process, not concurrent renders summed).
#   ROUNDS=3 JOBS="1 2 4" COUNT=8 SECONDS_EACH=5 THREADS=1 benchmarks/batch.sh
source "$(dirname "$0")/common.sh"
COUNT="${COUNT:-8}" SECONDS_EACH="${SECONDS_EACH:-5}" PRESET="${PRESET:-veryfast}" JOBS="${JOBS:-1 2 4}"
THREADS="${THREADS:-0}" SEQUENTIAL="${SEQUENTIAL:-1}"
build_release
IN="$BENCH_DIR/batch-in"
mkdir -p "$IN"
make_clip "$BENCH_DIR/clip720p${SECONDS_EACH}s.mp4" "$SECONDS_EACH"
for i in $(seq "$COUNT"); do cp -n "$BENCH_DIR/clip720p${SECONDS_EACH}s.mp4" "$IN/call$i.mp4"; done
rm -f "$BENCH_DIR/batch-times.txt"

# tree_measure NAME COMMAND...: wall seconds, peak summed RSS and peak single-process RSS (KiB),
# and CPU seconds of the whole tree (every process in it is waited for by its parent).
tree_measure() {
  local name="$1"; shift
  python3 - "$name" "$BENCH_DIR/batch-times.txt" "$@" <<'PY'
import os, resource, subprocess, sys, time
name, out, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
def rss_tree(root):
    parents, rss = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit(): continue
        try:
            stat = open(f"/proc/{entry}/stat").read()
            parents[int(entry)] = int(stat[stat.rindex(")") + 2:].split()[1])
            for line in open(f"/proc/{entry}/status"):
                if line.startswith("VmRSS:"): rss[int(entry)] = int(line.split()[1])
        except (OSError, ValueError, IndexError):
            pass
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [p for p, pp in parents.items() if pp == parent and p not in tree]
        tree.update(children); frontier.extend(children)
    values = [rss.get(p, 0) for p in tree]
    return sum(values), max(values, default=0)
start = time.monotonic()
proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
peak_sum = peak_one = 0
while proc.poll() is None:
    total, largest = rss_tree(proc.pid)
    peak_sum, peak_one = max(peak_sum, total), max(peak_one, largest)
    time.sleep(0.05)
wall = time.monotonic() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
if proc.returncode != 0:
    sys.exit(f"benchmark command failed ({proc.returncode}): {' '.join(cmd)}")
with open(out, "a") as f:
    f.write(f"{name} {wall:.2f} {peak_sum} {peak_one} {usage.ru_utime + usage.ru_stime:.2f}\n")
PY
}

# Best (least disturbed by other load) and median wall time per run, speed-ups over the first
# run named (the sequential renders, else the first batch), cores kept busy (CPU seconds / wall
# seconds, median) and the peaks of memory; then each batch against xargs + ffmpeg with as many jobs.
summarize_batch() {
  python3 - "$BENCH_DIR/batch-times.txt" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, wall, total, largest, cpu = line.split()
    rows.setdefault(name, []).append((float(wall), int(total), int(largest), float(cpu)))
walls = {name: [run[0] for run in runs] for name, runs in rows.items()}
cpus = {name: [run[3] for run in runs] for name, runs in rows.items()}
base = next(iter(rows))
best, median = min(walls[base]), statistics.median(walls[base])
print(f"{'run':<12} {'best s':>7} {'speed-up':>9} {'median s':>9} {'speed-up':>9} {'cores busy':>11} {'peak RSS, all processes':>24} {'largest process':>16}")
for name, runs in rows.items():
    b, m = min(walls[name]), statistics.median(walls[name])
    total, largest = max(run[1] for run in runs), max(run[2] for run in runs)
    busy = statistics.median(run[3] / run[0] for run in runs)
    print(f"{name:<12} {b:7.2f} {best / b:8.2f}x {m:9.2f} {median / m:8.2f}x {busy:11.2f} {total / 1024:20.0f} MiB {largest / 1024:12.0f} MiB")
for name in rows:
    other = name.replace("batch-", "ffmpeg-", 1)
    if name.startswith("batch-") and other in rows:
        # Ratios within each round (the two ran back to back), then their median: steadier than
        # the ratio of medians when other work comes and goes.
        wall = statistics.median(a / b for a, b in zip(walls[name], walls[other]))
        cpu = statistics.median(a / b for a, b in zip(cpus[name], cpus[other]))
        print(f"{name} / {other} (xargs -P ffmpeg): wall {wall:.2f}x (medians {statistics.median(walls[name]):.2f} vs "
              f"{statistics.median(walls[other]):.2f} s), CPU {cpu:.2f}x")
PY
}

# The sequential baseline: one render after another, from one shell.
sequential() {
  for clip in "$IN"/*.mp4; do
    "$FX" render "$clip" -o "$BENCH_DIR/seq-out/$(basename "$clip")" --preset "$PRESET" --threads "$THREADS" --overwrite --progress none
  done
}
# The same renders by the ffmpeg CLI, JOBS at once: what a shell user would run instead of batch.
ffmpeg_one() {
  ffmpeg -v error -nostdin -y -i "$1" -c:v libx264 -preset "$PRESET" -threads "$THREADS" -c:a copy -movflags +faststart \
    "$2/$(basename "$1")"
}
export -f sequential ffmpeg_one
export FX IN BENCH_DIR PRESET THREADS
mkdir -p "$BENCH_DIR/seq-out"
printf 'preset: %s\nthreads: %s\n' "$PRESET" "$THREADS" > "$BENCH_DIR/batch-job.yaml"
for round in $(seq "$ROUNDS"); do
  [ "$SEQUENTIAL" = 0 ] || tree_measure sequential bash -c sequential
  for jobs in $JOBS; do
    tree_measure "batch-j$jobs" "$FX" batch "$IN/*.mp4" --out "$BENCH_DIR/batch-out-j$jobs" --job "$BENCH_DIR/batch-job.yaml" \
      -j "$jobs" --force --progress none
    mkdir -p "$BENCH_DIR/ffmpeg-out-j$jobs"
    tree_measure "ffmpeg-j$jobs" bash -c "ls '$IN'/*.mp4 | xargs -P $jobs -I{} bash -c 'ffmpeg_one \"\$1\" $BENCH_DIR/ffmpeg-out-j$jobs' _ {}"
  done
done

echo "$COUNT recordings, 720p ${SECONDS_EACH} s each, libx264 preset=$PRESET threads=$THREADS, $(nproc) cores, $ROUNDS rounds"
summarize_batch

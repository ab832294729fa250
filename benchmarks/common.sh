# Shared by the benchmark scripts: build, a 720p test clip, timing with peak RSS, and the ratio table.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_DIR="${BENCH_DIR:-$ROOT/bench-out}"
ROUNDS="${ROUNDS:-3}"
# SCRATCH_PATH: the build directory (swift build --scratch-path), where a debug build shares the tree.
SCRATCH_PATH="${SCRATCH_PATH:-$ROOT/.build}"
# FX: the fxreplay to measure (then nothing is built), e.g. a copy kept from before a change.
if [ -n "${FX:-}" ]; then BUILD=0; else FX="$SCRATCH_PATH/release/fxreplay"; fi
mkdir -p "$BENCH_DIR"

build_release() {
  [ "${BUILD:-1}" = 0 ] && return
  bash "$ROOT/scripts/install-deps.sh"
  (cd "$ROOT" && swift build -c release --product fxreplay --scratch-path "$SCRATCH_PATH" >&2)
}

# The kernels' and the process stage's benchmark, built in the same folder.
FXBENCH="$SCRATCH_PATH/release/fxbench"
build_fxbench() {
  [ "${BUILD:-1}" = 0 ] && [ -x "$FXBENCH" ] && return
  (cd "$ROOT" && swift build -c release --product fxbench --scratch-path "$SCRATCH_PATH" >&2)
}

# make_clip PATH SECONDS: 720p H.264 + AAC with moving content, made once and reused.
make_clip() {
  local path="$1" seconds="$2"
  [ -f "$path" ] && return
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=1280x720:rate=30" -f lavfi -i "sine=frequency=440:sample_rate=48000" \
    -t "$seconds" -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p -c:a aac -b:a 96k -shortest "$path"
}

# measure NAME COMMAND...: runs it once, appends "NAME seconds peak_kib" to $BENCH_DIR/times.txt.
measure() {
  local name="$1"; shift
  /usr/bin/time -f "%e %M" -o "$BENCH_DIR/.last" "$@" >/dev/null 2>&1 || { echo "benchmark command failed: $*" >&2; exit 1; }
  echo "$name $(cat "$BENCH_DIR/.last")" >> "$BENCH_DIR/times.txt"
}

# summarize A B: median wall time and peak RSS of each, and the ratios A/B (also the median of the
# rounds' own wall ratios).
summarize() {
  python3 - "$BENCH_DIR/times.txt" "$1" "$2" <<'PY'
import sys, statistics
path, a, b = sys.argv[1:4]
rows = {}
for line in open(path):
    name, secs, kib = line.split()
    rows.setdefault(name, []).append((float(secs), int(kib)))
def med(name): return statistics.median(s for s, _ in rows[name])
def peak(name): return max(k for _, k in rows[name])
print(f"{a}: median {med(a):.2f} s over {len(rows[a])} rounds, peak RSS {peak(a)/1024:.0f} MiB")
print(f"{b}: median {med(b):.2f} s over {len(rows[b])} rounds, peak RSS {peak(b)/1024:.0f} MiB")
line = f"ratio {a}/{b}: wall time {med(a)/med(b):.2f}x, peak RSS {peak(a)/peak(b):.2f}x"
if len(rows[a]) == len(rows[b]) > 1:  # (interleaved rounds, as cpu_ratio says)
    ratios = [x / y for (x, _), (y, _) in zip(rows[a], rows[b])]
    line += f" (wall: median of the rounds' ratios {statistics.median(ratios):.3f}x, rounds {min(ratios):.3f}-{max(ratios):.3f})"
print(line)
PY
}

# timed NAME COMMAND...: measure (wall time, peak RSS), also appending "NAME user+sys seconds" to cpu.txt.
timed() {
  local name="$1"; shift
  measure "$name" /usr/bin/time -a -o "$BENCH_DIR/cpu.txt" -f "$name %U %S" "$@"
}

cpu_ratio() {
  python3 - "$BENCH_DIR/cpu.txt" "$1" "$2" <<'PY'
import sys, statistics
path, a, b = sys.argv[1:4]
cpu = {}
for line in open(path):
    name, user, system = line.split()
    cpu.setdefault(name, []).append(float(user) + float(system))
line = (f"CPU time: {a} {statistics.median(cpu[a]):.2f} s, {b} {statistics.median(cpu[b]):.2f} s, "
        f"ratio {statistics.median(cpu[a]) / statistics.median(cpu[b]):.2f}x")
# The scripts run A and B interleaved, one of each a round: each round's own ratio cancels the load
# a shared host swings between rounds.
if len(cpu[a]) == len(cpu[b]) > 1:
    ratios = [x / y for x, y in zip(cpu[a], cpu[b])]
    line += f" (median of the rounds' ratios {statistics.median(ratios):.3f}x, rounds {min(ratios):.3f}-{max(ratios):.3f})"
print(line)
PY
}

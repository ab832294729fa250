#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ (one per parser of outside input) with AddressSanitizer and
# runs each for FUZZ_SECONDS seconds (default 60), then prints executions and findings per target.
#
#   scripts/fuzz.sh                          # every target, 60 s each
#   FUZZ_SECONDS=600 scripts/fuzz.sh         # the real run: 10 minutes each
#   scripts/fuzz.sh FuzzOBJ FuzzPoseSEI      # some targets
#   FUZZ_PARALLEL=2 scripts/fuzz.sh          # two targets at a time (one core each)
#
# Each target starts from its seeds (Fuzz/corpus/TARGET, never modified) plus the corpus earlier runs
# grew (Fuzz/.build/corpus/TARGET). Findings (crash-*, timeout-*, oom-* inputs) and logs go to
# Fuzz/.build/findings/TARGET; a finding stops that target's run. Replay one with
# `Fuzz/.build/release/TARGET FILE`; once fixed, keep it as a regression test in Tests/Fuzz/TARGET/.
# Exit status 1 when anything was found.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
parallel=${FUZZ_PARALLEL:-1}
max_len=${FUZZ_MAX_LEN:-4096}

bash scripts/install-deps.sh
build=(swift build --package-path Fuzz -c release --sanitize=fuzzer --sanitize=address
       -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table -Xswiftc -parse-as-library)
# SwiftPM does not notice files added to or removed from a path dependency: when the root package's
# file list changed since the last build, drop the cached build plan (this rebuilds everything).
sources=$(find Sources -type f | sort | cksum)
stamp=Fuzz/.build/root-sources.cksum
[ "$(cat "$stamp" 2>/dev/null)" = "$sources" ] || rm -f Fuzz/.build/release.yaml
"${build[@]}" >&2
echo "$sources" >"$stamp"
bin=$("${build[@]}" --show-bin-path)

if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for dir in Fuzz/Sources/Fuzz*/; do
    name=$(basename "$dir")
    [ "$name" = FuzzHarness ] || targets+=("$name")
  done
fi

dictionary() {
  case "$1" in
    FuzzPoseJSONL | FuzzAnnotationScene | FuzzAnnotationCost | FuzzJobSpecJSON) echo Fuzz/dict/json.dict ;;
    FuzzPoseCSV | FuzzPlacementTrack | FuzzManifest) echo Fuzz/dict/csv.dict ;;
    FuzzJobSpecYAML) echo Fuzz/dict/yaml.dict ;;
    FuzzOBJ) echo Fuzz/dict/obj.dict ;;
    FuzzBatchPlan) echo Fuzz/dict/batch.dict ;;
    FuzzLayout) echo Fuzz/dict/json.dict ;;
  esac
}

run_target() {
  local target=$1 findings=Fuzz/.build/findings/$1 corpus=Fuzz/.build/corpus/$1
  mkdir -p "$findings" "$corpus"
  local options=(-max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048
                 -print_final_stats=1 -artifact_prefix="$findings/")
  local dict
  dict=$(dictionary "$target")
  [ -n "$dict" ] && options+=(-dict="$dict")
  echo "== $target: fuzzing for $seconds s" >&2
  # The Swift runtime's own crash reporter fights ASan: let libFuzzer report traps.
  local start=$SECONDS
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 \
    "$bin/$target" "${options[@]}" "$corpus" "Fuzz/corpus/$target" >"$findings/last-run.log" 2>&1 || true
  echo $((SECONDS - start)) >"$findings/last-run.seconds"
}

export -f run_target dictionary
export bin seconds max_len
printf '%s\n' "${targets[@]}" | xargs -P "$parallel" -I{} bash -c 'run_target {}'

status=0
printf '%-22s %12s %9s %9s %7s  %s\n' target executions exec/s seconds corpus findings
for target in "${targets[@]}"; do
  log=Fuzz/.build/findings/$target/last-run.log
  stat_of() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
  runs=$(stat_of number_of_executed_units) rate=$(stat_of average_exec_per_sec)
  elapsed=$(cat "Fuzz/.build/findings/$target/last-run.seconds")
  found=$(grep -o "Test unit written to [^ ]*" "$log" | sed 's/Test unit written to //' | tr '\n' ' ' || true)
  corpus=$(find "Fuzz/.build/corpus/$target" -type f | wc -l)
  if [ -n "$found" ]; then
    status=1
    reason=$(grep -m1 -E "Fatal error|ERROR: (AddressSanitizer|libFuzzer)" "$log" | cut -c1-160 || true)
    found="$found($reason)"
  fi
  printf '%-22s %12s %9s %9s %7s  %s\n' "$target" "${runs:-?}" "${rate:-?}" "${elapsed:-?}" "$corpus" "${found:-none}"
done
exit $status

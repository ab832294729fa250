#!/usr/bin/env bash
# Runs the test suite under AddressSanitizer and ThreadSanitizer (the pipeline is concurrent),
# each in its own build folder. Extra arguments go to `swift test` (e.g. --filter RenderTests);
# SANITIZERS picks which (default "address thread").
#
# Thread leaks are not reported: an interrupted render exits at once (_exit, 130/143) by design,
# while the encoder's own threads (x264's) are still there; everything else TSan finds fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
for sanitizer in ${SANITIZERS:-address thread}; do
  echo "== swift test --sanitize=$sanitizer" >&2
  swift build --build-tests --scratch-path ".build-$sanitizer" --sanitize="$sanitizer"
  FXREPLAY_SANITIZED=1 TSAN_OPTIONS="halt_on_error=1 report_thread_leaks=0" ASAN_OPTIONS="detect_leaks=0" \
    swift test --skip-build --scratch-path ".build-$sanitizer" --sanitize="$sanitizer" "$@"
done

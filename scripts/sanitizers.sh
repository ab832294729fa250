#!/usr/bin/env bash
# Runs the tests under AddressSanitizer and ThreadSanitizer (the pipeline is concurrent), each in its
# own build folder. AddressSanitizer runs the whole suite (every path into FFmpeg's C and our C
# kernels); ThreadSanitizer, 5-15 times slower, runs the suites that drive threads (about a fifth of
# the suite's CPU time): the renderer's stages, lanes and row bands through the library, compose's
# track decoders and speaker timeline, bounded async work, atomic outputs, interrupts, damaged inputs.
# (The whole suite under it took CI past its 45 minutes.) Extra arguments go to `swift test` and
# replace the thread filter (e.g. --filter RenderTests); SANITIZERS picks which (default "address thread").
#
# Thread leaks are not reported: an interrupted render exits at once (_exit, 130/143) by design,
# while the encoder's own threads (x264's) are still there; everything else TSan finds fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
thread_suites='RendererLibraryTests|JobEnvironmentTests|ProcessThreadsTests|FramesInFlightTests|RowBandsTests|BoundedWorkTests|LibraryAPITests|ComposerTrackOpeningTests|AtomicOutputTests|ErrorPathTests|DemuxerDamageTests|SpeakerLayoutTests'
for sanitizer in ${SANITIZERS:-address thread}; do
  arguments=("$@")
  if [[ $sanitizer == thread && $# -eq 0 ]]; then arguments=(--filter "$thread_suites"); fi
  echo "== swift test --sanitize=$sanitizer ${arguments[*]}" >&2
  started=$SECONDS
  swift build --build-tests --scratch-path ".build-$sanitizer" --sanitize="$sanitizer"
  built=$SECONDS
  FXREPLAY_SANITIZED=1 TSAN_OPTIONS="halt_on_error=1 report_thread_leaks=0" ASAN_OPTIONS="detect_leaks=0" \
    swift test --skip-build --scratch-path ".build-$sanitizer" --sanitize="$sanitizer" "${arguments[@]}"
  echo "== $sanitizer: build $(( built - started )) s, tests $(( SECONDS - built )) s" >&2
done

#!/usr/bin/env bash
# fxreplay's outputs and cluster files proven with the programs users run (issue #27): GStreamer
# reads every container/codec output, a real one-node Slurm cluster runs deploy/slurm/array.sh,
# the Kubernetes manifest is validated against the API schemas and its command run as its pods
# run it, and headless Chromium plays MP4 and WebM outputs and opens the QA report pages (no console
# errors, every picture loaded, screenshots in WORK/pages). CI runs it after the test suite.
#
#   scripts/interop.sh                         # everything (7 minutes on a busy 2-core machine)
#   scripts/interop.sh gstreamer chromium      # some parts: gstreamer, slurm, kubernetes, chromium
#
# Installs what it needs first (scripts/install-deps.sh interop: Debian packages; the schema
# validator from PyPI into .build/interop-venv), builds fxreplay (debug, as the tests do) unless
# FXREPLAY names a binary, works in a fresh temporary folder (INTEROP_WORK to keep it). Every
# check prints PASS/FAIL/SKIP; the last line is "N passed, N failed" and the exit status is 1 when
# any check failed. Services it starts (munged, slurmctld, slurmd, a loopback HTTP server,
# chromium) are stopped on every exit; all traffic stays on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONDONTWRITEBYTECODE=1
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(gstreamer slurm kubernetes chromium)

bash scripts/install-deps.sh
bash scripts/install-deps.sh interop
if [ -z "${FXREPLAY:-}" ]; then
  swift build --product fxreplay >&2
  FXREPLAY="$(swift build --show-bin-path)/fxreplay"
fi
FXREPLAY=$(realpath "$FXREPLAY")
work=${INTEROP_WORK:-}
if [ -z "$work" ]; then
  work=$(mktemp -d /tmp/fxreplay-interop.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
work=$(realpath "$work")
log="$work/interop.log"
: >"$log"

run_part() {
  local part=$1 start=$SECONDS status=0
  echo "== $part" | tee -a "$log"
  case "$part" in
    gstreamer)
      /usr/bin/python3 scripts/interop/gstreamer_matrix.py "$FXREPLAY" "$work/gstreamer" ;;
    slurm)
      bash scripts/slurm-cluster.sh run "$work/slurm-cluster" -- \
        /usr/bin/python3 scripts/interop/slurm_array.py "$FXREPLAY" "$work/slurm" ;;
    kubernetes)
      bash scripts/interop/kubernetes.sh "$FXREPLAY" "$work/kubernetes" ;;
    chromium)
      # The MP4 (H.264/AAC), WebM (VP9/Opus) and MP4 (VP9/Opus) outputs of the GStreamer part.
      [ -f "$work/gstreamer/h264.mp4" ] || /usr/bin/python3 scripts/interop/gstreamer_matrix.py "$FXREPLAY" "$work/gstreamer" >/dev/null || true
      # compose's outputs too, once the command exists (the GStreamer part writes them).
      videos=(mp4-h264-aac=h264.mp4 webm-vp9-opus=vp9.webm webm-vp8-opus=vp8.webm mp4-vp9-opus=vp9-opus.mp4)
      for container in mp4 webm; do
        if [ -f "$work/gstreamer/compose.$container" ]; then videos+=("compose-$container=compose.$container"); fi
      done
      /usr/bin/python3 scripts/interop/chromium_play.py "$work/gstreamer" "${videos[@]}"
      # The QA pages (qa compare and qa latency reports) opened as a reader would: screenshots in $work/pages.
      /usr/bin/python3 scripts/interop/chromium_pages.py "$FXREPLAY" "$work/pages" ;;
    *) echo "FAIL: unknown part '$part' (gstreamer, slurm, kubernetes, chromium)" ;;
  esac 2>&1 | tee -a "$log" || status=$?
  if [ "$status" -ne 0 ] && ! grep -q "^FAIL: " <(sed -n "/^== $part\$/,\$p" "$log"); then
    echo "FAIL: $part: exited $status without naming a failed check" | tee -a "$log"
  fi
  echo "($part: $((SECONDS - start)) s)" | tee -a "$log"
}

for part in "${parts[@]}"; do run_part "$part"; done
passed=$(grep -c "^PASS: " "$log" || true)
failed=$(grep -c "^FAIL: " "$log" || true)
skipped=$(grep -c "^SKIP: " "$log" || true)
grep "^FAIL: " "$log" || true
echo "interop: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

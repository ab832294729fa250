#!/usr/bin/env bash
# Installs the Debian packages fxreplay builds and runs with, when any is missing.
# `install-deps.sh interop` installs what scripts/interop.sh needs instead: GStreamer (its tools,
# discoverer, plugins and Python bindings), Slurm and munge, Chromium, python3-venv (the Kubernetes
# schema validator comes from PyPI into a virtual environment, see scripts/interop/kubernetes.sh).
set -euo pipefail
apt_options=()
packages=(pkg-config libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev libfreetype-dev fonts-dejavu-core ffmpeg time
          zsh fish)  # (the shells: the tests run the completion scripts fxreplay generates)
if [ "${1:-}" = interop ]; then
  packages=(gstreamer1.0-tools gstreamer1.0-plugins-base-apps gstreamer1.0-plugins-base gstreamer1.0-plugins-good
            gstreamer1.0-plugins-bad gstreamer1.0-libav python3 python3-gi gir1.2-gstreamer-1.0
            gir1.2-gst-plugins-base-1.0 python3-venv slurm-wlm munge chromium ffmpeg)
  apt_options=(--no-install-recommends)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${apt_options[@]}" "${missing[@]}" >/dev/null
fi

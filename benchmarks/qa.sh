#!/usr/bin/env bash
# QA tools vs the ffmpeg CLI on a 720p 30-second pair, ROUNDS rounds interleaved; prints median wall-time,
# peak-RSS and CPU-time (user + sys) ratios:
#   fxreplay compare A B   vs  ffmpeg -i A -i B -lavfi "[0:v][1:v]psnr;[0:v][1:v]ssim" -f null -
#   fxreplay framehash IN  vs  ffmpeg -i IN -map 0:v:0 ... -f framemd5 -
# On a shared machine wall time follows the other load; CPU time shows the work each tool does.
source "$(dirname "$0")/common.sh"
build_release
REFERENCE="$BENCH_DIR/clip720p30s.mp4"
make_clip "$REFERENCE" 30
# The video to check: the reference re-encoded at a lower quality, audio copied.
CHECKED="$BENCH_DIR/clip720p30s-crf30.mp4"
[ -f "$CHECKED" ] || ffmpeg -v error -y -i "$REFERENCE" -c:v libx264 -preset veryfast -crf 30 -c:a copy "$CHECKED"

rm -f "$BENCH_DIR/times.txt" "$BENCH_DIR/cpu.txt"
for round in $(seq "$ROUNDS"); do
  timed fxreplay-compare "$FX" compare "$CHECKED" "$REFERENCE"
  timed ffmpeg-psnr-ssim ffmpeg -v error -nostdin -i "$CHECKED" -i "$REFERENCE" -lavfi "[0:v][1:v]psnr;[0:v][1:v]ssim" -f null -
  timed fxreplay-framehash "$FX" framehash "$REFERENCE"
  timed ffmpeg-framemd5 ffmpeg -v error -nostdin -i "$REFERENCE" -map 0:v:0 -fps_mode passthrough -enc_time_base -1 \
    -fflags +bitexact -f framemd5 -
done
echo "compare, 720p 30 s H.264 pair (PSNR + SSIM); load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
summarize fxreplay-compare ffmpeg-psnr-ssim
cpu_ratio fxreplay-compare ffmpeg-psnr-ssim
echo "framehash, 720p 30 s H.264"
summarize fxreplay-framehash ffmpeg-framemd5
cpu_ratio fxreplay-framehash ffmpeg-framemd5

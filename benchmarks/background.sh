#!/usr/bin/env bash
# Background replacement: fxreplay render with a mask video and an image background vs the ffmpeg CLI
# doing the equivalent (mask luma as alpha over the picture scaled to cover the frame: alphamerge +
# overlay), same libx264 preset/CRF/threads, audio copied, on a 720p 30-second clip; ROUNDS rounds
# interleaved: median wall time, peak RSS and CPU time (user + sys; on a shared machine wall time follows
# the other load) ratios. Then the blurred background (--background blur:12) against ffmpeg's gblur +
# maskedmerge (its mask's chroma the mean over 2×2 luma samples, as formats.md §5) at x264 ultrafast and
# veryfast (BLUR_PRESETS), and the compositing kernels alone (fxbench), with the blur per frame on one
# thread next to ffmpeg's gblur per frame on one thread (fxbench gblur).
source "$(dirname "$0")/common.sh"
PRESET="${PRESET:-veryfast}" CRF="${CRF:-23}" THREADS="${THREADS:-0}"
build_release
build_fxbench
CLIP="$BENCH_DIR/clip720p30s.mp4"
MASK="$BENCH_DIR/mask720p30s.mp4"
PICTURE="$BENCH_DIR/background1600x1200.png"
make_clip "$CLIP" 30
# A soft-edged moving foreground, as a segmentation model would give, H.264 like a recorded mask.
[ -f "$MASK" ] || ffmpeg -v error -y -f lavfi \
  -i "color=black:size=1280x720:rate=30:duration=30,drawbox=x='400+250*sin(t)':y=100:w=480:h=620:color=white:t=fill,gblur=sigma=6" \
  -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p "$MASK"
# 4:3, so covering a 16:9 frame crops it.
[ -f "$PICTURE" ] || ffmpeg -v error -y -f lavfi -i "mandelbrot=size=1600x1200" -frames:v 1 "$PICTURE"
# The same picture already covering 1280×720: the ffmpeg graph above decodes and scales the looped
# picture for every frame, which this second ffmpeg run avoids (a fairer reference).
SCALED="$BENCH_DIR/background1280x720.png"
[ -f "$SCALED" ] || ffmpeg -v error -y -i "$PICTURE" -vf "scale=1280:720:force_original_aspect_ratio=increase,crop=1280:720" "$SCALED"
rm -f "$BENCH_DIR/times.txt" "$BENCH_DIR/cpu.txt"
for round in $(seq "$ROUNDS"); do
  timed fxreplay "$FX" render "$CLIP" -o "$BENCH_DIR/fx-background.mp4" --mask "$MASK" --background "image:$PICTURE" \
    --preset "$PRESET" --crf "$CRF" --threads "$THREADS" --progress none --overwrite
  timed ffmpeg ffmpeg -v error -y -i "$CLIP" -i "$MASK" -loop 1 -framerate 30 -i "$PICTURE" -filter_complex \
    "[2:v]scale=1280:720:force_original_aspect_ratio=increase,crop=1280:720,format=yuv420p[bg];[1:v]format=gray[m];[0:v][m]alphamerge[fg];[bg][fg]overlay=format=yuv420:shortest=1[v]" \
    -map "[v]" -map 0:a -c:v libx264 -preset "$PRESET" -crf "$CRF" -threads "$THREADS" -c:a copy "$BENCH_DIR/ff-background.mp4"
  timed ffmpeg-prescaled ffmpeg -v error -y -i "$CLIP" -i "$MASK" -loop 1 -framerate 30 -i "$SCALED" -filter_complex \
    "[2:v]format=yuv420p[bg];[1:v]format=gray[m];[0:v][m]alphamerge[fg];[bg][fg]overlay=format=yuv420:shortest=1[v]" \
    -map "[v]" -map 0:a -c:v libx264 -preset "$PRESET" -crf "$CRF" -threads "$THREADS" -c:a copy "$BENCH_DIR/ff-background-prescaled.mp4"
done
echo "background replacement (mask video + image), 720p 30 s, libx264 preset=$PRESET crf=$CRF threads=$THREADS"
summarize fxreplay ffmpeg
cpu_ratio fxreplay ffmpeg
summarize fxreplay ffmpeg-prescaled | tail -2
cpu_ratio fxreplay ffmpeg-prescaled
# The same comparison at x264 ultrafast, where fxreplay's own processing weighs most (#25 target:
# fxreplay ≤ 0.35× ffmpeg's wall).
rm -f "$BENCH_DIR/times.txt" "$BENCH_DIR/cpu.txt"
for round in $(seq "$ROUNDS"); do
  timed fxreplay-ultrafast "$FX" render "$CLIP" -o "$BENCH_DIR/fx-background.mp4" --mask "$MASK" --background "image:$PICTURE" \
    --preset ultrafast --crf "$CRF" --threads "$THREADS" --progress none --overwrite
  timed ffmpeg-ultrafast ffmpeg -v error -y -i "$CLIP" -i "$MASK" -loop 1 -framerate 30 -i "$PICTURE" -filter_complex \
    "[2:v]scale=1280:720:force_original_aspect_ratio=increase,crop=1280:720,format=yuv420p[bg];[1:v]format=gray[m];[0:v][m]alphamerge[fg];[bg][fg]overlay=format=yuv420:shortest=1[v]" \
    -map "[v]" -map 0:a -c:v libx264 -preset ultrafast -crf "$CRF" -threads "$THREADS" -c:a copy "$BENCH_DIR/ff-background.mp4"
done
echo "the same at preset=ultrafast"
summarize fxreplay-ultrafast ffmpeg-ultrafast
cpu_ratio fxreplay-ultrafast ffmpeg-ultrafast
# Blurred background: the frame blurred with σ = 12 behind the person, both sides on the same mask.
BLUR_GRAPH="[1:v]extractplanes=y,split=3[luma][m1][m2];[m1]scale=iw/2:ih/2:flags=area[cb];[m2]scale=iw/2:ih/2:flags=area[cr];\
[luma][cb][cr]mergeplanes=0x001020:yuv420p[mask];[0:v]split[call][copy];[copy]gblur=sigma=12[blurred];[blurred][call][mask]maskedmerge[v]"
for preset in ${BLUR_PRESETS:-ultrafast veryfast}; do
  for round in $(seq "$ROUNDS"); do
    timed "fxreplay-blur-$preset" "$FX" render "$CLIP" -o "$BENCH_DIR/fx-blur.mp4" --mask "$MASK" --background blur:12 \
      --preset "$preset" --crf "$CRF" --threads "$THREADS" --progress none --overwrite
    timed "ffmpeg-blur-$preset" ffmpeg -v error -y -i "$CLIP" -i "$MASK" -filter_complex "$BLUR_GRAPH" \
      -map "[v]" -map 0:a -c:v libx264 -preset "$preset" -crf "$CRF" -threads "$THREADS" -c:a copy "$BENCH_DIR/ff-blur.mp4"
  done
  echo "blurred background (mask video + blur:12 vs gblur=sigma=12 + maskedmerge), 720p 30 s, libx264 preset=$preset crf=$CRF"
  summarize "fxreplay-blur-$preset" "ffmpeg-blur-$preset"
  cpu_ratio "fxreplay-blur-$preset" "ffmpeg-blur-$preset"
done
"$FXBENCH" 1280x720 300
"$FXBENCH" gblur "$CLIP" 300

#!/usr/bin/env bash
# fxreplay compose vs the ffmpeg CLI doing the same job (formats.md §9), ROUNDS rounds interleaved:
# a 4-participant call (640x480 VP8 + Opus WebM each, participant i joining at i*STAGGER s and
# staying to the end of a CALL_SECONDS call) composed to a 1280x720 grid, H.264 (PRESET) + AAC.
# ffmpeg: -itsoffset per input, scale to each grid cell keeping the aspect ratio, overlay onto a
# black canvas; asetpts+adelay per sound, amix at unity gain. ffmpeg's grid is the final 2x2 one
# from the start, so fxreplay is given the same four cells as a layout file: the same pictures
# decoded, scaled, placed and encoded (its default grid, which grows as people join, shows a
# first participant full-frame, which costs libx264 ~10% more: not the same job). Both write what fxreplay writes: 1280x720 yuv420p at 30 fps, libx264 with the
# same preset and CRF and its own thread count, stereo AAC at 128 kbit/s (left to itself, ffmpeg
# would write the mono sines' mix as mono AAC at ~70 kbit/s, half the audio work).
# Prints median wall-time, CPU-time and peak-RSS ratios, then the floors that bound the ratio:
# libx264 alone encoding the composed pictures (piped in as y4m, the decoding not counted), and
# the four files decoded alone, as fractions of ffmpeg's CPU time. On 2 busy cores wall ~ CPU / 2.
# Then a 16-participant call (320x240 sources, joining every STAGGER16 s) composed by fxreplay
# alone: its speed (x realtime) and peak RSS (target < 1 GiB).
#   ROUNDS=3 benchmarks/compose.sh        (CALL_SECONDS=60 STAGGER=5 STAGGER16=2 PRESET=veryfast CRF=23)
source "$(dirname "$0")/common.sh"
CALL_SECONDS="${CALL_SECONDS:-60}" STAGGER="${STAGGER:-5}" STAGGER16="${STAGGER16:-2}"
PRESET="${PRESET:-veryfast}" CRF="${CRF:-23}"
build_release

# make_call DIR COUNT SIZE STAGGER: COUNT WebM files (VP8 + Opus; testsrc2 turned to its own hue,
# a sine of its own pitch beeping 4x a second) and the archive manifest placing them on the call.
make_call() {
  local dir="$1" count="$2" size="$3" stagger="$4" files=""
  mkdir -p "$dir"
  for i in $(seq 0 $((count - 1))); do
    local start=$((i * stagger)) length=$((CALL_SECONDS - i * stagger))
    local file="$dir/p$i.webm"
    [ -f "$file" ] || ffmpeg -v error -y -f lavfi -i "testsrc2=size=$size:rate=30,hue=h=$((i * 360 / count))" \
      -f lavfi -i "sine=frequency=$((300 + 45 * i)):sample_rate=48000:beep_factor=4" -t "$length" \
      -c:v libvpx -deadline realtime -cpu-used 8 -b:v 1M -c:a libopus -b:a 48k "$file"
    files+="${files:+,}{\"streamId\": \"p$i\", \"filename\": \"p$i.webm\", \"startTimeOffset\": $((start * 1000)),"
    files+=" \"stopTimeOffset\": $((CALL_SECONDS * 1000)), \"connectionData\": \"{\\\"name\\\":\\\"P$i\\\"}\", \"videoType\": \"camera\"}"
  done
  echo "{\"id\": \"bench-$count\", \"createdAt\": 1767225600000, \"sessionId\": \"bench\", \"name\": \"benchmark\", \"files\": [$files]}" \
    > "$dir/archive.json"
}

CALL4="$BENCH_DIR/call4x640x480-${CALL_SECONDS}s"
make_call "$CALL4" 4 640x480 "$STAGGER"

# The ffmpeg CLI's composition: the 2x2 grid of §9 (cells 640x360, each 640x480 picture contained
# as 480x360, centred), every input delayed by its start, sounds delayed and summed.
ffmpeg_inputs=() graph="color=black:size=1280x720:rate=30:duration=$CALL_SECONDS[c0];" mix=""
cells=("80:0" "720:0" "80:360" "720:360")
for i in 0 1 2 3; do
  start=$((i * STAGGER))
  ffmpeg_inputs+=(-itsoffset "$start" -i "$CALL4/p$i.webm")
  graph+="[$i:v]scale=480:360,setsar=1[v$i];[c$i][v$i]overlay=${cells[$i]}:eof_action=pass[c$((i + 1))];"
  graph+="[$i:a]asetpts=PTS-STARTPTS,aresample=48000,adelay=$((start * 1000)):all=1[a$i];"
  mix+="[a$i]"
done
graph+="${mix}amix=inputs=4:duration=longest:normalize=0[a]"

rm -f "$BENCH_DIR/times.txt" "$BENCH_DIR/cpu.txt"
cat > "$CALL4/layout.json" <<'JSON'
{"version": 1, "background": "#000000",
 "tiles": [{"stream": "p0", "rect": [0, 0, 640, 360]}, {"stream": "p1", "rect": [640, 0, 640, 360]},
           {"stream": "p2", "rect": [0, 360, 640, 360]}, {"stream": "p3", "rect": [640, 360, 640, 360]}]}
JSON
for round in $(seq "$ROUNDS"); do
  timed fxreplay "$FX" compose "$CALL4/archive.json" -o "$BENCH_DIR/fx-call4.mp4" --layout "$CALL4/layout.json" --size 1280x720 --fps 30 \
    --codec h264 --preset "$PRESET" --crf "$CRF" --progress none --overwrite
  timed ffmpeg ffmpeg -v error -y "${ffmpeg_inputs[@]}" -filter_complex "$graph" -map "[c4]" -map "[a]" -t "$CALL_SECONDS" \
    -c:v libx264 -preset "$PRESET" -crf "$CRF" -pix_fmt yuv420p -c:a aac -ar 48000 -ac 2 -b:a 128k "$BENCH_DIR/ff-call4.mp4"
done
echo "compose, 4 participants 640x480 VP8/Opus, ${CALL_SECONDS} s call, to 1280x720 libx264 preset=$PRESET crf=$CRF + AAC"
summarize fxreplay ffmpeg
cpu_ratio fxreplay ffmpeg

# The floors, CPU seconds (user + sys): no composer can spend less than x264 and the decoders do.
floor() { /usr/bin/time -f "%U %S" -o "$BENCH_DIR/.floor" "$@" >/dev/null 2>&1; awk '{ print $1 + $2 }' "$BENCH_DIR/.floor"; }
x264_cpu=$(ffmpeg -v error -i "$BENCH_DIR/ff-call4.mp4" -an -f yuv4mpegpipe - |
  floor ffmpeg -v error -f yuv4mpegpipe -i - -c:v libx264 -preset "$PRESET" -crf "$CRF" -pix_fmt yuv420p -f null -)
decode_cpu=$(floor ffmpeg -v error -i "$CALL4/p0.webm" -i "$CALL4/p1.webm" -i "$CALL4/p2.webm" -i "$CALL4/p3.webm" \
  -map 0 -map 1 -map 2 -map 3 -f null -)
python3 - "$BENCH_DIR/cpu.txt" "$x264_cpu" "$decode_cpu" <<'PY'
import sys, statistics
path, x264, decode = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
cpu = {}
for line in open(path):
    name, user, system = line.split()
    cpu.setdefault(name, []).append(float(user) + float(system))
ff, fx = statistics.median(cpu["ffmpeg"]), statistics.median(cpu["fxreplay"])
print(f"floors: libx264 alone {x264:.2f} s CPU ({x264 / ff:.2f}x ffmpeg's), decoding alone {decode:.2f} s ({decode / ff:.2f}x); "
      f"together {(x264 + decode) / ff:.2f}x ffmpeg's CPU; fxreplay spends {fx - x264 - decode:.2f} s above them, ffmpeg {ff - x264 - decode:.2f} s")
PY

CALL16="$BENCH_DIR/call16x320x240-${CALL_SECONDS}s"
make_call "$CALL16" 16 320x240 "$STAGGER16"
rm -f "$BENCH_DIR/times.txt"
measure fxreplay16 "$FX" compose "$CALL16/archive.json" -o "$BENCH_DIR/fx-call16.mp4" --size 1280x720 --fps 30 \
  --codec h264 --preset "$PRESET" --crf "$CRF" --progress none --overwrite
read -r _ seconds kib < "$BENCH_DIR/times.txt"
awk -v s="$seconds" -v k="$kib" -v call="$CALL_SECONDS" 'BEGIN {
  printf "compose, 16 participants 320x240, %d s call: %.2f s, %.2fx realtime, peak RSS %.0f MiB (target < 1024)\n", call, s, call / s, k / 1024 }'

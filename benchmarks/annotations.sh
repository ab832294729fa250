#!/usr/bin/env bash
# Annotations (issue #5): fxreplay render of a 720p 30-second clip with 20 annotations of mixed shapes
# (5 labelled, some spinning or on stems) versus the same render without annotations, both with the
# same pose sidecar (a slowly panning camera) so only the drawing differs; same libx264 preset/CRF/
# threads; ROUNDS rounds interleaved: median wall time, peak RSS and CPU time (user + sys; on a shared
# machine wall time follows the other load) ratios. Targets (#25): ≤ 1.25× wall at x264 `ultrafast`
# (where the encoder is cheap and the drawing shows most), ≤ 1.10× CPU at $PRESET on the camera-like clip.
# Then the encoder's share (libx264 via the ffmpeg CLI on each render's frames: the drawn detail
# makes encoding dearer) and the rasterizer alone (fxbench annotations): annotations per second.
# Both on the clean synthetic clip and on a camera-like one (the same pattern with sensor noise).
source "$(dirname "$0")/common.sh"
PRESET="${PRESET:-veryfast}" CRF="${CRF:-23}" THREADS="${THREADS:-0}"
build_release
(cd "$ROOT" && swift build -c release --product fxbench >&2)
CLIP="$BENCH_DIR/clip720p30s.mp4"
NOISY_CLIP="$BENCH_DIR/noisy720p30s.mp4"
POSES="$BENCH_DIR/poses720p30s.jsonl"
SCENE="$BENCH_DIR/annotations20.json"
make_clip "$CLIP" 30
FRAMES="$(ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$CLIP")"
python3 - "$POSES" "$SCENE" "$FRAMES" <<'PY'
import json, math, sys
poses, scene, frames = sys.argv[1], sys.argv[2], int(sys.argv[3])
# A camera at eye height drifting sideways and forwards while it pans and nods a little.
with open(poses, "w") as out:
    for i in range(frames):
        s = i / 30
        position = [0.25 * math.sin(0.21 * s), 1.4 + 0.05 * math.sin(0.5 * s), -0.01 * s]
        euler = [0.06 * math.sin(0.33 * s), 0.18 * math.sin(0.17 * s), 0.02 * math.sin(0.4 * s)]
        out.write(json.dumps({"frame": i, "position": position, "euler": euler, "zNear": 0.01, "fovY": 60}) + "\n")
# 20 annotations, 1–5 m in front of the camera and well inside its view (±1.03·d wide, ±0.58·d high at
# depth d), every shape at least twice; labels on 5, stems on 3, spin on 3.
shapes = ["sphere", "box", "cone", "cylinder", "arrow", "pin", "ring", "star"]
colors = ["#FF3B30", "#34C759", "#007AFF", "#FF9500", "#AF52DE", "#FFCC00", "#5AC8FA", "#FF2D55CC"]
annotations = []
for i in range(20):
    depth = 1 + 4 * ((i * 7) % 20) / 19
    x = depth * 0.55 * math.sin(1.7 * i)
    y = 1.4 + depth * 0.3 * math.cos(2.3 * i)
    a = {"id": f"a{i}", "anchor": {"world": [round(x, 3), round(y, 3), round(-depth, 3)]},
         "shape": shapes[i % len(shapes)], "size": round(0.05 + 0.25 * ((i * 11) % 20) / 19, 3),
         "color": colors[i % len(colors)], "orientation": [0.3 * (i % 3), 0.4 * (i % 5), 0]}
    if i % 4 == 1: a["label"] = f"Check point {i}"
    if i % 7 == 3: a["stem"] = True
    if i % 6 == 2: a["spin"] = 0.25
    annotations.append(a)
json.dump({"version": 1, "annotations": annotations}, open(scene, "w"), indent=1)
PY
# compare_on CLIP LABEL [PRESET]: the two renders of CLIP, interleaved, then the encoder alone on each one's frames.
compare_on() {
  local clip="$1" label="$2" PRESET="${3:-$PRESET}"
  rm -f "$BENCH_DIR/times.txt" "$BENCH_DIR/cpu.txt"
  for round in $(seq "$ROUNDS"); do
    timed annotations "$FX" render "$clip" -o "$BENCH_DIR/fx-annotations.mp4" --poses "$POSES" --annotations "$SCENE" \
      --preset "$PRESET" --crf "$CRF" --threads "$THREADS" --progress none --overwrite
    timed plain "$FX" render "$clip" -o "$BENCH_DIR/fx-plain.mp4" --poses "$POSES" \
      --preset "$PRESET" --crf "$CRF" --threads "$THREADS" --progress none --overwrite
  done
  echo "== $label: annotations (20, mixed shapes, 5 labelled) vs none, 720p 30 s, libx264 preset=$PRESET crf=$CRF threads=$THREADS"
  summarize annotations plain
  cpu_ratio annotations plain
  # The encoder's share: the ffmpeg CLI encoding the two renders' decoded frames (raw, from memory)
  # with the same settings. The drawn detail costs libx264 time that no drawing speed can save.
  for name in annotations plain; do
    ffmpeg -v error -y -i "$BENCH_DIR/fx-$name.mp4" -f rawvideo -pix_fmt yuv420p "$RAW_DIR/$name.yuv"
  done
  rm -f "$BENCH_DIR/times.txt" "$BENCH_DIR/cpu.txt"
  for round in $(seq "$ROUNDS"); do
    for name in annotations plain; do
      timed "encode-$name" ffmpeg -v error -y -f rawvideo -pix_fmt yuv420p -s 1280x720 -r 30 -i "$RAW_DIR/$name.yuv" \
        -c:v libx264 -preset "$PRESET" -crf "$CRF" -threads "$THREADS" -f null -
    done
  done
  echo "the encoder alone (ffmpeg CLI, libx264 on the decoded frames of each render):"
  summarize encode-annotations encode-plain
  cpu_ratio encode-annotations encode-plain
}
RAW_DIR="$(mktemp -d "${TMPDIR_RAW:-/dev/shm}/fxreplay-raw.XXXXXX")"
trap 'rm -rf "$RAW_DIR"' EXIT
compare_on "$CLIP" "clean synthetic clip (testsrc2)"
# A camera's picture carries sensor noise, which costs the encoder far more than testsrc2's flat
# colours; drawn annotations replace some of it. The same pattern with temporal noise stands in.
if [ ! -f "$NOISY_CLIP" ]; then
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=1280x720:rate=30,noise=alls=8:allf=t+u" \
    -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 30 -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p \
    -c:a aac -b:a 96k -shortest "$NOISY_CLIP"
fi
compare_on "$NOISY_CLIP" "camera-like clip (testsrc2 with sensor noise)"
compare_on "$NOISY_CLIP" "camera-like clip (testsrc2 with sensor noise)" ultrafast
"$ROOT/.build/release/fxbench" annotations 1280x720 300 "$SCENE"

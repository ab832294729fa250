#!/usr/bin/env bash
# fxreplay track (poses from SEI and from a sidecar, packets only) vs decoding the same file with
# `ffmpeg -i IN -f null -`, on a 720p 30-second H.264 recording with pose SEI on every frame.
# Target: track at least 20× faster than decoding.
source "$(dirname "$0")/common.sh"
build_release
CLIP="$BENCH_DIR/clip720p30s.mp4"
make_clip "$CLIP" 30
POSES="$BENCH_DIR/track-poses.jsonl"
SCENE="$BENCH_DIR/track-scene.json"
WITH_SEI="$BENCH_DIR/clip720p30s-sei.mp4"
python3 - "$POSES" "$SCENE" <<'PY'
import json, math, sys
with open(sys.argv[1], "w") as f:
    for i in range(900):
        f.write(json.dumps({"frame": i, "position": [0.2 * math.sin(i / 90), 1.5, 0.01 * i],
                            "euler": [-0.1, 0.3 * math.sin(i / 120), 0.0], "zNear": 0.01, "fovY": 60}) + "\n")
anns = [{"id": f"a{k}", "anchor": {"world": [k * 0.2 - 1, 0.5, -3]}, "shape": "sphere", "size": 0.1} for k in range(10)]
json.dump({"version": 1, "annotations": anns}, open(sys.argv[2], "w"))
PY
[ -f "$WITH_SEI" ] || "$FX" poses embed "$CLIP" --poses "$POSES" --copy -o "$WITH_SEI" --progress none 2>/dev/null
rm -f "$BENCH_DIR/times.txt" "$BENCH_DIR/cpu.txt"
for round in $(seq "$ROUNDS"); do
  timed track-sei "$FX" track "$WITH_SEI" --poses-from-sei --annotations "$SCENE" -o "$BENCH_DIR/t1.csv"
  timed track-sidecar "$FX" track "$CLIP" --poses "$POSES" --annotations "$SCENE" -o "$BENCH_DIR/t2.csv"
  timed decode ffmpeg -v error -i "$WITH_SEI" -f null -
done
echo "track vs full decode, 720p 30 s H.264 (900 frames, 10 annotations)"
summarize track-sei decode
summarize track-sidecar decode
cpu_ratio track-sei decode
cpu_ratio track-sidecar decode

# The camera path (a pose sidecar, FRAMES frames at 30 fps) and the 20-annotation scene of the
# annotation benchmarks: python3 scene20.py POSES.jsonl SCENE.json FRAMES. Shared by
# benchmarks/annotations.sh and benchmarks/process.sh.
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

#!/usr/bin/env bash
# Installs what fxreplay needs, builds it, and renders the bundled sample call (Samples/, a synthetic
# recorded call made by `fxreplay sample`) as Samples/job.yaml says: annotations placed from each
# frame's pose SEI, background behind the person replaced using the call's mask. Then composes the
# whole call the same recording is part of (Samples/call-archive.zip: the phone's stream, an expert
# and an audio-only dispatcher) into one grid video, the phone's tile annotated from its poses as
# the app logged them on its own clock (Samples/call-archive.job.yaml). Prints where the outputs are
# and a one-line summary. Extra arguments go to `fxreplay render`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build -c release --product fxreplay >&2
fxreplay=.build/release/fxreplay
mkdir -p out
"$fxreplay" render --job Samples/job.yaml Samples/call.mp4 -o out/call-rendered.mp4 --overwrite \
    --report out/call-report.json --preview out/call-preview.png "$@"
# The whole call: every participant at its call time in a grid with names, sound mixed.
"$fxreplay" compose --job Samples/call-archive.job.yaml Samples/call-archive.zip -o out/call-composed.mp4 --overwrite \
    --preview out/call-composed-preview.png
# Placement check: where every annotation lands on every frame (formats.md §7), from the same poses.
"$fxreplay" track Samples/call.mp4 --poses-from-sei --annotations Samples/annotations.json -o out/call-track.csv 2>/dev/null

# One line: frames and timing as probe reads them back from the output, and the placement check.
probe=$("$fxreplay" probe out/call-rendered.mp4)
frames=$(sed -n 's/^  video frames: \([0-9]*\)$/\1/p' <<<"$probe")
start=$(sed -n 's/^  #[0-9]* video .*, start \([0-9.]*\) s$/\1/p' <<<"$probe")
timing=$(sed -n 's/^  frame interval: .*mean \([0-9.]*\) ms.*(\(.*\))$/\1 \2/p' <<<"$probe")
placements=$(awk -F, 'NR > 1 { total++; if ($4 == 1) { shown++; ids[$3] = 1 } }
                      END { n = 0; for (id in ids) n++; printf "%d annotations on screen in %d of %d frame placements", n, shown, total }' out/call-track.csv)
echo "output: $(pwd)/out/call-rendered.mp4 (contact sheet out/call-preview.png, report out/call-report.json, track out/call-track.csv)"
echo "call:   $(pwd)/out/call-composed.mp4 (contact sheet out/call-composed-preview.png)"
awk -v frames="$frames" -v start="$start" -v timing="$timing" -v placements="$placements" 'BEGIN {
    split(timing, t, " "); kind = substr(timing, length(t[1]) + 2)
    printf "summary: %d frames from %.3f s, %.1f fps on average (%s); %s\n", frames, start, 1000 / t[1], kind, placements }'

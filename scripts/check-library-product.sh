#!/usr/bin/env bash
# Builds a throwaway package outside this one that depends on the ReplayKitless product only
# (issue #26 item 11): it sees the public API alone (the tests and the CLI, in this package, also see
# `package` symbols, so they cannot tell), compiles the README's library example verbatim and a call
# of each public job, and checks that swift-argument-parser (the CLI's) is neither compiled nor linked.
# About as long as a debug build of the library (a few minutes on 2 cores).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/replaykitless-client.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Sources/Client"
cat > "$work/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "Client",
    dependencies: [
        .package(path: "$repo"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(name: "Client", dependencies: [
            .product(name: "ReplayKitless", package: "$(basename "$repo")"),
            .product(name: "Logging", package: "swift-log"),
        ]),
    ]
)
SWIFT
# The README's example as it stands: the first swift block after "## Using ReplayKitless from Swift".
awk '/^## Using ReplayKitless from Swift/ { on = 1 } on && /^```swift/ { grab = 1; next } grab && /^```/ { exit } grab' \
    "$repo/README.md" > "$work/Sources/Client/main.swift"
grep -q 'Renderer' "$work/Sources/Client/main.swift" || { echo "check-library-product: README example not found" >&2; exit 1; }
cat > "$work/Sources/Client/Jobs.swift" <<'SWIFT'
import Logging
import ReplayKitless

// Never called: each public job once, with the types a program handles.
func everyJob() async throws {
    var options = RenderOptions(input: "call.mp4", output: "out.mp4")
    options.poses = PoseSettings(source: .sei)
    options.annotations = AnnotationSettings(scene: "annotations.json")
    options.background = BackgroundSettings(mask: .video(path: "call.mask.mkv"), background: .image(path: "bg.png"))
    let run = Renderer(options: options).start()
    for await progress in run.progress where progress.framesDone > 100 { run.cancel() }
    _ = try await run.report()
    _ = try await Renderer.render("call.mp4", to: "out.mp4", mask: .video(path: "call.mask.mkv"), background: "bg.png")
    let opened = try OpenedCall.open("call-archive.zip")
    _ = try await Composer(options: ComposeOptions(call: opened.call, output: "call.mp4")).run()
    let comparison = try await VideoComparison.compare("a.mp4", with: "b.mp4")
    print(comparison.result.text)
    let track = try PlacementTrack.track(of: "call.mp4", poses: PoseSettings(source: .sei), scene: "annotations.json")
    print(PlacementTrack.text(track.rows, format: .csv))
    print(TrackComparisonReport(comparing: try PlacementTrack.load(path: "a.csv"), with: try PlacementTrack.load(path: "b.csv")).passed)
    let latency = try LatencyQA(input: "call.mp4", poses: PoseSettings(source: .sei))
    let taps = LatencyTap.taps(in: try AnnotationScene.load(path: "annotations.json"), width: latency.width, height: latency.height)
    print(latency.report(taps: taps, delays: [0.2]).html(directory: "."))
    print(try MediaProbe.probe("call.mp4").streams.map(\.codingSummary))
    print(try SampleGenerator.generate(SampleSettings(), into: "sample", overwrite: true).files)
    FFmpegLogging.configure(verbose: true)
}
SWIFT
cd "$work"
swift build -j "${JOBS:-2}" 2>&1 | grep -E 'error|warning: .*Client|Compiling Client|Build complete' || true
binary="$(swift build --show-bin-path)/Client"
test -x "$binary" || { echo "check-library-product: the client did not build" >&2; exit 1; }
if nm "$binary" | grep -q ArgumentParser; then
    echo "check-library-product: the ReplayKitless product links swift-argument-parser" >&2; exit 1
fi
echo "check-library-product: a client of the ReplayKitless product builds from the public API; no ArgumentParser in it"

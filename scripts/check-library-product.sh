#!/usr/bin/env bash
# Builds a throwaway package outside this one that depends on the ReplayKitless product only
# (issue #26 item 11): it sees the public API alone (the tests and the CLI, in this package, also see
# `package` symbols, so they cannot tell), compiles the README's library example verbatim and a call
# of each public job, and checks that swift-argument-parser (the CLI's) is neither compiled nor linked.
# Then runs a second client (issue #36 item 6) that adds a FrameEffect of its own, renders the bundled
# sample with it and reads the painted pixels back with ffmpeg, and catches a library error that names
# the option property (`RenderOptions.overwrite`), not the command line's flag. Last, the CLI itself
# (`Sources/fxreplay` and its batch target, copied here under other target names, which must be unique
# in a package graph) builds as such a client: it uses the library's public API only (issue #36 item 6).
# About as long as a debug build of the library (a few minutes on 2 cores).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/replaykitless-client.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Sources/Client" "$work/Sources/EffectCheck"
cp -R "$repo/Sources/fxreplay" "$work/Sources/CheckedCLI"
cp -R "$repo/Sources/FxreplayBatch" "$work/Sources/CheckedBatch"
sed -i 's/^import FxreplayBatch$/import CheckedBatch/' "$work/Sources/CheckedCLI/"*.swift
cat > "$work/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "Client",
    dependencies: [
        .package(path: "$repo"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        .executableTarget(name: "Client", dependencies: [
            .product(name: "ReplayKitless", package: "$(basename "$repo")"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "EffectCheck", dependencies: [
            .product(name: "ReplayKitless", package: "$(basename "$repo")"),
        ]),
        .target(name: "CheckedBatch", dependencies: [
            .product(name: "ReplayKitless", package: "$(basename "$repo")"),
            .product(name: "Yams", package: "Yams"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "CheckedCLI", dependencies: [
            "CheckedBatch",
            .product(name: "ReplayKitless", package: "$(basename "$repo")"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
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

// Never called: each public job once, with the types a program handles. Files are `FilePath`s,
// which `import ReplayKitless` alone names; media inputs, which may be URLs, are strings.
func everyJob() async throws {
    let output: FilePath = "out.mp4"
    var options = RenderOptions(input: "call.mp4", output: output)
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
cat > "$work/Sources/EffectCheck/main.swift" <<'SWIFT'
import Foundation
import ReplayKitless

/// Paints a 32x32 square of one Y'CbCr colour with its top-left corner at (16, 16) on every frame.
final class PaintSquare: FrameEffect {
    let name = "paintSquare"
    private var frames = 0
    func apply(to image: YUVImage, at time: FrameTime) throws(ReplayError) {
        image.luma.fill(200, x: 16, y: 16, width: 32, height: 32)
        let sx = image.subsampling.shiftX, sy = image.subsampling.shiftY
        image.cb.fill(60, x: 16 >> sx, y: 16 >> sy, width: 32 >> sx, height: 32 >> sy)
        image.cr.fill(190, x: 16 >> sx, y: 16 >> sy, width: 32 >> sx, height: 32 >> sy)
        frames += 1
    }
    func reportLines() -> [String: Int] { ["frames": frames] }
}

func fail(_ text: String) -> Never {
    FileHandle.standardError.write(Data("EffectCheck: \(text)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
var options = RenderOptions(input: arguments[1], output: FilePath(arguments[2]))
options.encoder.codec = .ffv1   // lossless: the painted samples come back exactly
do {
    let report = try await Renderer(options: options, extraEffects: [PaintSquare()]).run()
    guard report.effects.custom["paintSquare"]?["frames"] == report.framesEncoded, report.framesEncoded > 0 else {
        fail("the effect's count \(report.effects) does not match \(report.framesEncoded) frames")
    }
    print("rendered \(report.framesEncoded) frames with PaintSquare")
} catch {
    fail("render failed: \(error.message)")
}
// The output exists now: a second render without `overwrite` must refuse, naming the property.
do {
    _ = try await Renderer(options: options, extraEffects: [PaintSquare()]).run()
    fail("a second render replaced \(options.output) without options.overwrite")
} catch {
    guard error.kind == .usage, error.message.contains("RenderOptions.overwrite"), !error.message.contains("--") else {
        fail("the refusal does not name RenderOptions.overwrite: \(error.message)")
    }
    print("refused: \(error.message)")
}
SWIFT
cd "$work"
swift build -j "${JOBS:-2}" 2>&1 | grep -E 'error|warning: .*Client|Compiling Client|Build complete' || true
binary="$(swift build --show-bin-path)/Client"
test -x "$binary" || { echo "check-library-product: the client did not build" >&2; exit 1; }
cli="$(swift build --show-bin-path)/CheckedCLI"
test -x "$cli" || { echo "check-library-product: the CLI does not build from the library's public API (errors above)" >&2; exit 1; }
"$cli" --version >/dev/null || { echo "check-library-product: the CLI built from the public API does not run" >&2; exit 1; }
if nm "$binary" | grep -q ArgumentParser; then
    echo "check-library-product: the ReplayKitless product links swift-argument-parser" >&2; exit 1
fi
"$(swift build --show-bin-path)/EffectCheck" "$repo/Samples/call.mp4" "$work/painted.mkv"
# Every frame's 2x2 block at (24, 24), as 4:2:0: four luma samples, then Cb and Cr; all must be the paint.
# (-v fatal: the rawvideo muxer complains of repeated millisecond timestamps; the count against ffprobe's
# catches a frame lost.)
blocks=$(ffmpeg -v fatal -i "$work/painted.mkv" -fps_mode passthrough -vf crop=2:2:24:24 -f rawvideo -pix_fmt yuv420p - | od -An -v -tu1 -w6 | sort | uniq -c)
frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$work/painted.mkv")
if [ "$(echo "$blocks" | wc -l)" != 1 ] || ! echo "$blocks" | grep -Eq "^ *$frames +200 +200 +200 +200 +60 +190$"; then
    echo "check-library-product: the custom effect's square is not in every frame of the output:" >&2
    echo "$blocks" >&2; exit 1
fi
echo "check-library-product: a client of the ReplayKitless product builds from the public API; no ArgumentParser in it;"
echo "  its own FrameEffect painted all $frames frames of the sample, and the library's refusal named RenderOptions.overwrite;"
echo "  the CLI (with its batch target) builds from the library's public API alone"

import Foundation
import Logging
import Testing
import ReplayKitless

/// The README's "Using ReplayKitless from Swift" example, compiled with the test target: the test
/// below checks that the README shows exactly these lines (less the imports, which sit at the top of
/// this file, and its comment lines), so the example cannot drift from an API that compiles. Never called: it would render
/// `call.mp4` in the working directory.
func readmeExample() async {
    // README-EXAMPLE-BEGIN
    ReplayLog.logger = Logger(label: "my-app")   // warnings, and FFmpeg's lines when asked; dropped by default
    var options = RenderOptions(input: "call.mp4", output: "call-upright.mp4")
    options.encoder.codec = .h264
    options.encoder.crf = 20
    options.overwrite = true   // replace the file an earlier run wrote
    final class CornerMark: FrameEffect {
        let name = "cornerMark"
        func apply(to image: YUVImage, at time: FrameTime) throws(ReplayError) {
            image.luma.fill(235, x: 0, y: 0, width: 16, height: 16)   // a light square, top left
        }
    }
    do {
        let report = try await Renderer(options: options, extraEffects: [CornerMark()]).run { progress in
            print("\(progress.framesDone) of \(progress.framesExpected.map(String.init) ?? "?") frames")
        }
        print("\(report.framesEncoded) frames, \(report.output.width)x\(report.output.height), \(report.output.bytes) bytes")
        let info = try MediaProbe.probe("call.mp4")
        print(info.frameIntervals?.variableFrameRate == true ? "VFR" : "CFR")
        let poses = try PoseSEI.poses(in: "call.mp4")   // (time, pose) of every frame with a pose SEI
        print("\(poses.count) poses, the first at \(poses.first?.time ?? 0) s")
    } catch {
        print("failed (exit code \(error.exitCode)): \(error.localizedDescription)")
    }
    // README-EXAMPLE-END
}

@Suite struct ReadmeExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func readmeShowsTheCompiledExample() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "## Using ReplayKitless from Swift"))
        let afterHeading = readme[section.upperBound...]
        let open = try #require(afterHeading.range(of: "```swift\n"))
        let close = try #require(afterHeading[open.upperBound...].range(of: "```\n"))
        let shown = afterHeading[open.upperBound..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("//") && !$0.hasPrefix("import ") && !$0.isEmpty }

        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let begin = try #require(source.range(of: "// README-EXAMPLE-BEGIN\n"))
        let end = try #require(source.range(of: "    // README-EXAMPLE-END"))
        let compiled = source[begin.upperBound..<end.lowerBound].split(separator: "\n").map { $0.dropFirst(4) }
        #expect(shown.map(String.init) == compiled.map(String.init))
        // The imports the example needs are the ones this file compiles with.
        for line in afterHeading[open.upperBound..<close.lowerBound].split(separator: "\n") where line.hasPrefix("import ") {
            #expect(source.contains(line + "\n"), "README imports \(line), which this file does not")
        }
    }
}

import Foundation
import Testing
import ReplayKitless

/// The renderer as another Swift program uses it (the README's example): no stderr output, its
/// own progress callback, the report describing the file written.
@Suite struct RendererLibraryTests {
    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples/call.mp4").path

    @Test func rendersWithACallerProgressCallbackAndAnHonestReport() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("upright.mp4").path
        var options = RenderOptions(input: Self.sample, output: FilePath(output))
        options.encoder.crf = 40
        var seen: [(Int, Int?)] = []
        let report = try Renderer(options: options).run(progress: .none) { seen.append(($0, $1)) }
        #expect(report.framesEncoded == 116)
        // Frames done never go back, and the last call reports all of them.
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.0 <= $1.0 })
        #expect(seen.last?.0 == 116 && seen.last?.1 != nil)
        let size = try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int64
        #expect(report.output.bytes == size && size ?? 0 > 0)

        // Without overwrite an existing output is refused before any work, and left as it was.
        var again = options
        again.encoder.crf = 10
        var calls = 0
        do {
            _ = try Renderer(options: again).run(progress: .none) { _, _ in calls += 1 }
            Issue.record("replaced an existing output without overwrite")
        } catch {
            #expect(error.exitCode == 2 && error.message.contains("already exists"))
        }
        #expect(calls == 0)
        #expect(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int64 == size)
    }
}

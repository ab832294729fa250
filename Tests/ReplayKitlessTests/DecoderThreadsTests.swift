import Foundation
import FxTestSupport
import Testing
@testable import ReplayKitless

/// `encoder.threads` also bounds the video's decoding threads: a batch of one-thread renders, one
/// per core, does not start a decoding thread per core beside each.
@Suite struct DecoderThreadsTests {
    @Test func encoderThreadsBoundTheDecodingAndChangeNoPixel() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let call = ProcessThreadsTests.samples.appendingPathComponent("call.mp4").path
        var hashes: [Int: [String]] = [:]
        for threads in [0, 1, 2] {
            let output = directory.appendingPathComponent("out\(threads).mkv").path
            var options = RenderOptions(input: call, output: FilePath(output))
            options.encoder.codec = .ffv1
            options.encoder.threads = threads
            options.size = PictureSize(width: 160, height: 96)
            let report = try Renderer(options: options).run(progress: .none)
            if threads > 0 {
                #expect(report.decoderThreads == threads)
            } else {
                // FFmpeg's choice: a thread per core and one more, on more than one core.
                #expect(report.decoderThreads > (RowBands.availableCores > 1 ? 1 : 0))
            }
            hashes[threads] = try ProcessThreadsTests.frameHashes(output)
        }
        #expect(hashes[0]?.count == 116)
        #expect(hashes[1] == hashes[0])
        #expect(hashes[2] == hashes[0])
    }
}

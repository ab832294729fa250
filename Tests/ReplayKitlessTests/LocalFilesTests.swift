import Foundation
import Testing
@testable import ReplayKitless

/// Every spelling libavformat (FFmpeg 5.1) or a plain reader would open a local file by is the same
/// file as the plain path to an output: `AtomicOutput` refuses to write over it.
@Suite struct LocalFilesTests {
    @Test func wrappersOfTheFileProtocolLeadToTheFile() {
        let paths = { (spelling: String) in LocalFiles.paths(spelling) }
        #expect(paths("file:///abs/x.mp4").contains("///abs/x.mp4"))
        #expect(paths("file:x.mp4").contains("x.mp4"))
        #expect(paths("file://localhost/abs/x.mp4").contains("/abs/x.mp4"))
        #expect(paths("file:///abs/x%2Emp4").contains("///abs/x.mp4"))
        #expect(paths("async:cache:file:/abs/x.mp4").contains("/abs/x.mp4"))
        #expect(paths("crypto+file:/abs/x.mp4").contains("/abs/x.mp4"))
        #expect(paths("hls+file:/abs/x.m3u8").contains("/abs/x.m3u8"))
        #expect(paths("subfile,,start,10,end,20,,:/abs/x.mp4").contains("/abs/x.mp4"))
        #expect(paths("concat:/abs/a.mp4|file:/abs/b.mp4").contains("/abs/a.mp4") && paths("concat:/abs/a.mp4|file:/abs/b.mp4").contains("/abs/b.mp4"))
        // Network protocols lead to no other local file; the spelling itself is still a path.
        #expect(paths("https://example.com/x.mp4") == ["https://example.com/x.mp4"])
        #expect(paths("/abs/async:x.mp4") == ["/abs/async:x.mp4"])
    }

    @Test func aConcatListAndEveryURLInItAreRead() throws {
        let dir = try temporaryDirectory()
        try Data("file:\(dir)/a.mp4\nb.mp4\n".utf8).write(to: URL(fileURLWithPath: "\(dir)/list.txt"))
        let paths = LocalFiles.paths("concatf:\(dir)/list.txt")
        #expect(paths.contains(FilePath("\(dir)/list.txt")) && paths.contains(FilePath("\(dir)/a.mp4")) && paths.contains(FilePath("\(dir)/b.mp4")))
    }

    @Test func atomicOutputRefusesEverySpellingOfAnInput() throws {
        let dir = try temporaryDirectory()
        let input = "\(dir)/in.mp4"
        try Data("recording".utf8).write(to: URL(fileURLWithPath: input))
        try FileManager.default.createSymbolicLink(atPath: "\(dir)/link", withDestinationPath: dir)
        link(input, "\(dir)/hard.mp4")
        for spelling in ["file://\(input)", "file:\(dir)/link/in.mp4", "async:file:\(dir)/../\(URL(fileURLWithPath: dir).lastPathComponent)/in.mp4",
                         "cache:\(dir)/hard.mp4", "subfile,,start,0,end,1,,:\(input)", "concat:\(dir)/other.mp4|\(input)",
                         "file://\(dir)/in%2Emp4"] {
            let error = replayError { _ = try AtomicOutput(path: FilePath(input), overwrite: true, inputs: [spelling]) }
            #expect(error?.kind == .usage, "\(spelling)")
        }
        // Two outputs of one run that do not exist yet, by different spellings.
        let error = replayError { _ = try AtomicOutput(path: FilePath("\(dir)/new.png"), overwrite: true, inputs: ["\(dir)/link/./new.png"]) }
        #expect(error?.kind == .usage)
        let fine = try AtomicOutput(path: FilePath("\(dir)/other.png"), overwrite: true, inputs: ["file://\(input)", "https://x/other.png"])
        fine.abort()
    }
}

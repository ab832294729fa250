import Foundation
import FxTestSupport
import Testing
@testable import ReplayKitless

/// Issue #33: a call's video tracks are opened as the call reaches them and closed after, so a
/// participant with thousands of back-to-back tracks does not hold thousands of decoders open.
@Suite struct ComposerTrackOpeningTests {
    /// The files under `folder` this process holds open now (its entries of /proc/self/fd): other
    /// tests running at the same time open other files, which are not counted.
    static func openFiles(under folder: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) ?? "").hasPrefix(folder) }.count
    }

    /// 200 tracks of one participant, back to back, 0.2 s each (all the same 2-picture file): the
    /// most files open at once while it composes stays at a handful (the track playing and those
    /// starting within half a second); every track used to be opened before the first frame.
    @Test func backToBackTracksAreOpenedAsTheCallReachesThem() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let media = folder + "/piece.webm"
        try CallFixtures.writeMedia(media, video: .constant(size: PictureSize(width: 32, height: 24), fps: 10, duration: 0.2, tag: 1), audio: nil)
        let tracks = (0..<200).map { i in
            CallTrack(path: FilePath(media), name: "piece-\(i).webm", start: Double(i) * 0.2, stop: Double(i + 1) * 0.2,
                      mediaStart: 0, mediaEnd: 0.2, hasVideo: true, hasAudio: false)
        }
        let call = Call(source: FilePath(folder + "/call.json"), manifest: folder + "/call.json", epoch: nil,
                        streams: [CallStream(id: "p", name: "P", videoType: nil, order: 0, tracks: tracks)])
        var options = ComposeOptions(call: call, output: FilePath(folder + "/out.mkv"))
        options.size = PictureSize(width: 32, height: 24)
        options.fps = 10
        options.encoder.codec = .ffv1
        var most = 0
        let report = try Composer(options: options).run(progress: .none, observe: { _, _ in
            most = max(most, Self.openFiles(under: folder + "/piece"))
        })
        #expect(report.framesEncoded == 400)
        #expect(report.participants.first?.framesDecoded == 400)
        #expect(most >= 1 && most <= 8, "\(most) files open at once")
        #expect(Self.openFiles(under: folder + "/piece") == 0)
    }
}

import CFFmpeg
import Foundation

/// One video decoded on a thread of its own, its pictures handed out in presentation order with
/// their times relative to the first one: `fxreplay compare` decodes its two inputs side by side, and
/// `fxreplay framehash` hashes one picture while the next ones decode. Pictures are passed by
/// reference (no copy); give each one back with ``recycle(_:)``.
final class PictureStream: @unchecked Sendable {
    /// A decoded picture and when it is shown.
    struct Item {
        /// Holds a reference to the decoder's picture; its `pts` is the decoder's (possibly none).
        let frame: Frame
        /// Presentation index, from 0.
        let index: Int
        /// Seconds since the first frame.
        let time: Double
        /// Seconds the frame is shown (its packet duration, else the nominal interval).
        let duration: Double
    }

    let url: String
    let stream: StreamInfo
    /// One frame at the rate FFmpeg guesses for the stream (`av_guess_frame_rate`), seconds; 1/30 when unknown.
    let nominalInterval: Double
    /// The file has an audio stream.
    let hasAudio: Bool
    /// The opened input: read what it declares before ``start()``, never after.
    let demuxer: Demuxer
    private let reader: VideoFrameReader
    private let queue = BoundedQueue<Item>(capacity: 6)
    private let shells = FramePool(keepsBuffers: false)
    private let failure = Locked<ReplayError?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    /// Opens `url`'s first video stream; decoding begins with ``start()``. `alpha`: as ``VideoFrameReader``.
    init(url: String, alpha: Bool = true) throws(ReplayError) {
        self.url = url
        reader = try VideoFrameReader(url: url, alpha: alpha)
        demuxer = reader.demuxer
        stream = reader.stream
        hasAudio = reader.demuxer.streams.contains { $0.kind == .audio }
        let rate = av_guess_frame_rate(reader.demuxer.context, reader.demuxer.stream(stream.index), nil)
        nominalInterval = rate.num > 0 && rate.den > 0 ? Double(rate.den) / Double(rate.num) : 1.0 / 30
    }

    /// Starts decoding on a thread of its own (once).
    func start() {
        JobThread.start { [self] in
            decode()
            finished.signal()
        }
    }

    private func decode() {
        defer { queue.close() }
        let timeBase = stream.timeBase
        var first: Int64?
        var previous: (pts: Int64, duration: Int64)?
        var index = 0
        do {
            while let frame = try reader.next() {
                let shell = try shells.takeShell()
                try ffmpeg("av_frame_ref", av_frame_ref(shell.pointer, frame.pointer))
                var pts = frame.pts
                // A frame without a timestamp follows its predecessor.
                if pts == noPTS { pts = previous.map { $0.pts + max(1, $0.duration) } ?? 0 }
                let origin = first ?? pts
                first = origin
                previous = (pts, frame.duration)
                let duration = frame.duration > 0 ? timeBase.seconds(frame.duration) : nominalInterval
                guard queue.put(Item(frame: shell, index: index, time: timeBase.seconds(pts - origin), duration: duration)) else {
                    shell.recycle()
                    return
                }
                index += 1
            }
        } catch let error as ReplayError {
            failure.withLock { $0 = error }
        } catch {
            failure.withLock { $0 = .processing("\(url): \(error)") }
        }
    }

    /// The next picture; `nil` after the last. A decoding failure is thrown once the pictures before it are used up.
    func next() throws(ReplayError) -> Item? {
        if let item = queue.take() { return item }
        finished.wait()
        finished.signal()
        if let error = failure.withLock({ $0 }) { throw error }
        return nil
    }

    /// Gives a picture back once it is measured.
    func recycle(_ item: Item) { item.frame.recycle() }

    /// Stops decoding and drops whatever is queued.
    func cancel() { queue.cancel() }
}

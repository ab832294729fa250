import CFFmpeg
import Foundation

/// A recording's video stream read packet by packet, without decoding: when each frame is shown,
/// the display size, and the pose SEI each frame carries. Enough for `fxreplay track` and
/// `fxreplay poses extract`.
///
/// The size comes from the stream parameters, so a mid-stream resolution change is not seen here.
package struct VideoPacketScan: Sendable {
    /// Index of the video stream read (FFmpeg's best video stream).
    package var streamIndex: Int
    /// FFmpeg's codec name (`h264`, `hevc`, `vp8`, …).
    package var codecName: String
    /// Frames in presentation order; times in seconds relative to the first frame.
    package var frames: [FrameTiming]
    /// Stream time of the first frame in seconds, for sidecars in absolute time.
    package var firstFrameTime: Double
    /// Picture size in display orientation (width and height swapped for 90° and 270° rotations).
    package var width: Int
    package var height: Int
    /// Per frame (presentation order), the pose its SEI carries; all `nil` when SEI was not read.
    package var seiPoses: [Pose32?]
    /// Per frame (presentation order), its timestamp in the stream's time base.
    package var presentationTimestamps: [Int64]

    /// The packets carry no timestamps (a raw H.264/HEVC stream): the frames were decoded to find
    /// their order and pose SEI, and timed as the renderer times them (``UntimedFrames``).
    package var isUntimed = false

    /// Reads every video packet of `path`; with `sei` set, also the pose SEI (H.264 and HEVC only:
    /// other codecs are a bad-input error, their poses must come from a sidecar).
    package init(path: String, sei: PoseSEI? = nil) throws(ReplayError) {
        let demuxer = try Demuxer(url: path)
        guard let video = demuxer.bestVideoStream else { throw ReplayError.badInput("\(path): no video stream") }
        demuxer.keepOnly(streams: [video.index])
        let carrier = try demuxer.seiCarrier(ofStream: video.index)
        if sei != nil, carrier == nil {
            throw ReplayError.badInput("\(path): \(video.codecName) video carries no SEI; give the poses in a sidecar file")
        }

        var packets: [Timed] = []
        // Timestamps of packets whose SEI walk stopped at a message running past its NAL unit.
        var overruns: [Int64] = []
        let packet = try Packet()
        while try demuxer.read(into: packet) {
            defer { packet.unref() }
            // Frames before the start of the container's edit list are decoded but never shown.
            guard packet.streamIndex == video.index, !packet.isDiscarded else { continue }
            let timestamp = packet.pts != noPTS ? packet.pts : packet.dts
            guard timestamp != noPTS else {
                guard packets.isEmpty else { throw ReplayError.badInput("\(path): video packet \(packets.count) has no timestamp") }
                isUntimed = true
                break
            }
            var pose: Pose32?
            if let sei, let carrier {
                do throws(ReplayError) {
                    let read = try sei.read([UInt8](packet.data), codec: carrier.codec, framing: carrier.framing)
                    pose = read.pose
                    if read.overran { overruns.append(timestamp) }
                } catch {
                    throw ReplayError.badInput("\(path): video packet at timestamp \(timestamp): \(error.message)")
                }
            }
            packets.append(Timed(pts: timestamp, duration: packet.duration, pose: pose))
        }
        if let first = overruns.first {
            // Decoders stop there too; a pose message after it is lost, which the user should know.
            ReplayLog.warning(
                "\(path): in \(overruns.count) video packets (the first at timestamp \(first)) an SEI message "
                + "claims more bytes than its NAL unit holds; the messages after it were not read")
        }
        if isUntimed {
            packets = try Self.decodedFrames(path: path, stream: video.index, sei: sei,
                                             frameTicks: demuxer.nominalFrameTicks(ofStream: video.index))
        }
        guard let first = packets.min(by: { $0.pts < $1.pts }) else { throw ReplayError.badInput("\(path): the video stream has no frames") }
        packets.sort { $0.pts < $1.pts }

        let seconds = video.timeBase.seconds
        let times = packets.map { seconds($0.pts - first.pts) }
        // A frame is shown until the next one. Packet durations can say otherwise (a Matroska track's
        // default duration, a B-frame stream's decode steps), so they count only for the last frame.
        let shown = FrameTiming.timings(presentationTimes: times)
        frames = packets.indices.map { index in
            let own = packets[index].duration
            let isLast = index + 1 == packets.count || shown[index].duration <= 0
            return FrameTiming(time: times[index], duration: isLast && own > 0 ? seconds(own) : shown[index].duration)
        }
        streamIndex = video.index
        codecName = video.codecName
        firstFrameTime = seconds(first.pts)
        let turned = video.rotation % 180 != 0
        width = turned ? video.height : video.width
        height = turned ? video.width : video.height
        seiPoses = packets.map(\.pose)
        presentationTimestamps = packets.map(\.pts)
        // As in a pose32 sidecar: position and rotation must be numbers (zNear and fovY are checked
        // after the lens overrides, which may replace them).
        for sample in seiSamples {
            let values = [sample.position.x, sample.position.y, sample.position.z, sample.euler.x, sample.euler.y, sample.euler.z]
            if let bad = values.firstIndex(where: { !$0.isFinite }) {
                throw ReplayError.badInput(file: path, field: "\(sample.errorName), \(Pose32.fieldNames[bad])",
                                           "the pose SEI holds \(values[bad]), not a finite number")
            }
        }
    }

    /// A frame's timestamp and duration in the stream's time base, and its pose SEI.
    private struct Timed {
        var pts: Int64
        var duration: Int64
        var pose: Pose32?
    }

    /// The frames of a stream whose packets carry no timestamps, decoded: only the decoder knows their
    /// presentation order. FFmpeg's H.264/HEVC decoders hand each frame's user data SEI on as side data.
    private static func decodedFrames(path: String, stream: Int, sei: PoseSEI?, frameTicks: Int64) throws(ReplayError) -> [Timed] {
        let reader = try VideoFrameReader(url: path, stream: stream)
        var frames: [Timed] = []
        while let frame = try reader.next() {
            let pts = frame.pts != noPTS ? frame.pts
                : UntimedFrames.pts(after: frames.last.map { ($0.pts, $0.duration) }, frameTicks: frameTicks)
            var pose: Pose32?
            if let sei {
                do throws(ReplayError) {
                    for payload in PoseSideData.userData(of: frame) where pose == nil {
                        pose = try sei.pose(inUserData: payload)
                    }
                } catch {
                    throw ReplayError.badInput("\(path): frame \(frames.count): \(error.message)")
                }
            }
            frames.append(Timed(pts: pts, duration: frame.duration, pose: pose))
        }
        return frames
    }

    /// The SEI poses as samples keyed by frame time (relative seconds), skipping frames without one.
    package var seiSamples: [PoseSample] {
        seiPoses.indices.compactMap { index in
            seiPoses[index].map { pose in
                var sample = PoseSample(key: .time(frames[index].time), pose32: pose)
                sample.seiFrame = index
                return sample
            }
        }
    }
}

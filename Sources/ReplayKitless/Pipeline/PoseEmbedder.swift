import CFFmpeg
import Foundation

/// `fxreplay poses embed --copy`: writes a pose SEI NAL unit into every H.264/HEVC access unit of
/// a recording that has a pose, without re-encoding (before the first slice, with emulation
/// prevention), and removes the pose SEI of frames that have none; every other stream is copied untouched.
/// (Re-encoding instead: ``Renderer`` with ``RenderOptions/embedPoses``.)
public enum PoseEmbedder {
    /// What the copy did.
    public struct Result: Sendable {
        /// Video frames copied.
        public var frames = 0
        /// Frames that got a pose SEI.
        public var embedded = 0
        /// How the poses met the frames.
        public var match = PoseMatchReport()
        /// What the output leaves out (see ``FramePoses/pose32Warning``).
        public var warnings: [String] = []
    }

    /// Copies `input` (a local path or a URL that ``InputPolicy`` allows) to `path` with `settings`'
    /// poses as SEI in its H.264/HEVC video, without re-encoding; replaces an existing `path` only with `overwrite`.
    /// - Throws: ``ReplayError`` (usage) for video that cannot carry SEI or a raw stream without
    ///   timestamps: both need re-encoding.
    public static func embedByCopy(input: String, output path: FilePath, poses settings: PoseSettings,
                                   overwrite: Bool) throws(ReplayError) -> Result {
        let sei = try settings.seiFormat()
        let poses = try FramePoses(settings: settings, input: input)
        let demuxer = try Demuxer(url: input)
        guard let video = demuxer.bestVideoStream else { throw .badInput("\(input): no video stream") }
        guard let (codec, framing) = try demuxer.seiCarrier(ofStream: video.index) else {
            throw .usage("\(input): \(video.codecName) video cannot carry SEI; re-encode with `RenderOptions.encoder.codec` h264 or hevc "
                         + "instead of `PoseEmbedder.embedByCopy`", options: ["RenderOptions.encoder.codec", "PoseEmbedder.embedByCopy"])
        }
        guard !poses.scan.isUntimed else {
            throw .usage("\(input): a raw \(video.codecName) stream has no timestamps to copy into a container; "
                         + "leave out `PoseEmbedder.embedByCopy` to re-encode it", options: ["PoseEmbedder.embedByCopy"])
        }

        let outputFile = try AtomicOutput(path: path, overwrite: overwrite, inputs: [input] + settings.inputFiles.map(\.string))
        let muxer = try Muxer(output: outputFile, bitexact: false)
        var streamMap: [Int: Int] = [:]
        for info in demuxer.streams {
            if let out = try muxer.addCopiedStream(from: demuxer, stream: info.index) { streamMap[info.index] = out }
        }
        guard streamMap[video.index] != nil else { throw .usage("\(path): this container cannot hold \(video.codecName) video") }
        try muxer.writeHeader()

        let shownTicks = presentationDurations(poses.scan.presentationTimestamps,
                                               declaredEnd: demuxer.declaredEnd(ofStream: video.index))
        var result = Result()
        result.match = poses.timeline.report
        result.warnings = poses.pose32Warning.map { [$0] } ?? []
        let packet = try Packet()
        let rewritten = try Packet()
        while try demuxer.read(into: packet) {
            guard let out = streamMap[packet.streamIndex] else { packet.unref(); continue }
            guard packet.streamIndex == video.index else {
                try muxer.write(packet, stream: out)
                continue
            }
            result.frames += 1
            let timestamp = packet.pts != noPTS ? packet.pts : packet.dts
            // MP4/MOV end a track at its latest pts + duration: packets without a duration (MP4's
            // B-frame streams) would cut the last frame off the edit list.
            if packet.duration <= 0, let frame = poses.frameIndex(pts: timestamp) { packet.duration = shownTicks[frame] }
            let pose = poses.pose32(pts: timestamp)
            let accessUnit = [UInt8](packet.data)
            let replaced: [UInt8]?
            do {
                // A frame without a new pose loses an old one: re-embedding with gaps must not leave stale poses.
                replaced = try pose.map { try sei.inserting($0, into: accessUnit, codec: codec, framing: framing) }
                    ?? sei.removingPose(from: accessUnit, codec: codec, framing: framing)
            } catch {
                throw .badInput("\(input): video packet at \(String(format: "%.3f", video.timeBase.seconds(timestamp))) s: \(error)")
            }
            if pose != nil { result.embedded += 1 }
            guard let replaced else {
                try muxer.write(packet, stream: out)
                continue
            }
            do {
                try ffmpeg("av_new_packet", av_new_packet(rewritten.pointer, Int32(replaced.count)))
                try ffmpeg("av_packet_copy_props", av_packet_copy_props(rewritten.pointer, packet.pointer))
            } catch { throw .processing("\(path): \(error)") }
            replaced.withUnsafeBufferPointer { rewritten.pointer.pointee.data.update(from: $0.baseAddress!, count: replaced.count) }
            packet.unref()
            try muxer.write(rewritten, stream: out)
        }
        try muxer.finish()
        return result
    }

    /// How long each frame (presentation order, timestamps `pts`) is shown, in the stream's time base:
    /// until the next one; the last as the renderer times it.
    static func presentationDurations(_ pts: [Int64], declaredEnd: Int64?) -> [Int64] {
        pts.indices.map { index in
            if index + 1 < pts.count { return pts[index + 1] - pts[index] }
            return LastFrameDuration.ticks(pts: pts[index], own: 0, previousGap: index > 0 ? pts[index] - pts[index - 1] : nil,
                                           declaredEnd: declaredEnd)
        }
    }
}

import CFFmpeg

/// A compressed packet; owns its `AVPacket` and frees it exactly once.
final class Packet: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AVPacket>

    /// - Throws: `processing` when it cannot be allocated (out of memory): exit 4, no output.
    init() throws(ReplayError) {
        guard let packet = av_packet_alloc() else { throw .processing("out of memory (av_packet_alloc)") }
        pointer = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }

    var streamIndex: Int { Int(pointer.pointee.stream_index) }
    var pts: Int64 { pointer.pointee.pts }
    var dts: Int64 { pointer.pointee.dts }
    var duration: Int64 {
        get { pointer.pointee.duration }
        set { pointer.pointee.duration = newValue }
    }
    var size: Int { Int(pointer.pointee.size) }
    var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    /// Decoded only to prime the decoder: the container's edit list starts later, so the frame is never shown.
    var isDiscarded: Bool {
        get { pointer.pointee.flags & AV_PKT_FLAG_DISCARD != 0 }
        set { pointer.pointee.flags = newValue ? pointer.pointee.flags | AV_PKT_FLAG_DISCARD : pointer.pointee.flags & ~AV_PKT_FLAG_DISCARD }
    }

    /// The packet's payload bytes, valid until the packet is reused.
    var data: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: pointer.pointee.data, count: Int(pointer.pointee.size))
    }

    /// Drops the payload so the packet can be reused.
    func unref() { av_packet_unref(pointer) }

    func rescale(from source: AVRational, to destination: AVRational) {
        av_packet_rescale_ts(pointer, source, destination)
    }
}

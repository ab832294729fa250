import CFFmpeg

/// A compressed packet; owns its `AVPacket` and frees it exactly once.
public final class Packet: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AVPacket>

    public init() {
        guard let packet = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        pointer = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }

    public var streamIndex: Int { Int(pointer.pointee.stream_index) }
    public var pts: Int64 { pointer.pointee.pts }
    public var dts: Int64 { pointer.pointee.dts }
    public var duration: Int64 { pointer.pointee.duration }
    public var size: Int { Int(pointer.pointee.size) }
    public var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }

    /// The packet's payload bytes, valid until the packet is reused.
    public var data: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: pointer.pointee.data, count: Int(pointer.pointee.size))
    }

    /// Drops the payload so the packet can be reused.
    public func unref() { av_packet_unref(pointer) }

    /// Moves this packet's payload into a new packet (for handing to another thread).
    public func moveToNew() -> Packet {
        let moved = Packet()
        av_packet_move_ref(moved.pointer, pointer)
        return moved
    }

    func rescale(from source: AVRational, to destination: AVRational) {
        av_packet_rescale_ts(pointer, source, destination)
    }
}

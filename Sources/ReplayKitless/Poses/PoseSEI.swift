import CFFmpeg

/// The video codecs whose bitstreams can carry poses in SEI (formats.md §4).
public enum NALCodec: Sendable, Equatable {
    case h264, hevc
}

/// How a packet delimits its NAL units.
public enum NALFraming: Sendable, Equatable {
    /// Start codes `00 00 01` / `00 00 00 01` (MPEG-TS, raw `.h264`/`.hevc`, MKV without extradata).
    case annexB
    /// Each NAL unit preceded by its big-endian length in this many bytes (1…4), as in MP4 and MKV.
    case lengthPrefixed(Int)

    /// The framing a stream's codec extradata implies: empty or start-code extradata means Annex B;
    /// `avcC` / `hvcC` give the length size (`lengthSizeMinusOne` in their low two bits of byte 4 / 21).
    public init(extradata: [UInt8], codec: NALCodec) throws(ReplayError) {
        if extradata.isEmpty || extradata.starts(with: [0, 0, 1]) || extradata.starts(with: [0, 0, 0, 1]) {
            self = .annexB
            return
        }
        let (minimumSize, lengthByte) = switch codec {
        case .h264: (7, 4)
        case .hevc: (23, 21)
        }
        guard extradata.count >= minimumSize, extradata[0] == 1 || codec == .hevc else {
            throw ReplayError.badInput("unrecognised \(codec == .h264 ? "avcC" : "hvcC") codec configuration "
                                       + "(\(extradata.count) bytes of extradata)")
        }
        self = .lengthPrefixed(Int(extradata[lengthByte] & 3) + 1)
    }
}

extension Demuxer {
    /// The NAL codec and framing of video stream `index`, or `nil` when its codec cannot carry SEI.
    /// - Throws: bad input naming the file when the codec configuration is not understood.
    func seiCarrier(ofStream index: Int) throws(ReplayError) -> (codec: NALCodec, framing: NALFraming)? {
        let codec: NALCodec
        switch streams[index].codecName {
        case "h264": codec = .h264
        case "hevc": codec = .hevc
        default: return nil
        }
        let parameters = stream(index).pointee.codecpar.pointee
        let extradata = parameters.extradata.map { [UInt8](UnsafeBufferPointer(start: $0, count: Int(parameters.extradata_size))) } ?? []
        do {
            return (codec, try NALFraming(extradata: extradata, codec: codec))
        } catch {
            throw .badInput("\(url): \(error)")
        }
    }
}

/// Poses carried per access unit in `user_data_unregistered` SEI (formats.md §4): the payload is a
/// 16-byte UUID followed by the 32-byte pose32 record.
///
/// Reading works on the compressed packets themselves, without decoding: SEI NAL units (H.264 type 6,
/// HEVC prefix 39 or suffix 40) are unescaped, their messages walked, and the first `user_data_unregistered`
/// message (type 5) whose UUID matches gives the pose. Other user data (x264's version string) is skipped.
/// libx265 writes its own UUID in front of the user data it is given, so the UUID is also matched at
/// offset 16.
public struct PoseSEI: Sendable, Equatable {
    /// `1618ea80-35fe-4bd9-b1cc-01954a32fb00`.
    public static let defaultUUID: [UInt8] = [0x16, 0x18, 0xEA, 0x80, 0x35, 0xFE, 0x4B, 0xD9,
                                              0xB1, 0xCC, 0x01, 0x95, 0x4A, 0x32, 0xFB, 0x00]

    /// The 16-byte UUID that marks pose messages.
    public let uuid: [UInt8]

    /// Pose SEI with the default UUID.
    public init() { uuid = Self.defaultUUID }

    /// Pose SEI with a user-supplied UUID, written `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (dashes optional).
    public init(uuid text: String) throws(ReplayError) {
        let digits = Array(text.utf8.filter { $0 != UInt8(ascii: "-") })
        let values = digits.compactMap { Character(Unicode.Scalar($0)).hexDigitValue }
        guard digits.count == 32, values.count == 32 else {
            throw .usage("\"\(text)\" is not a UUID (32 hexadecimal digits, e.g. 1618ea80-35fe-4bd9-b1cc-01954a32fb00)")
        }
        uuid = stride(from: 0, to: 32, by: 2).map { UInt8(values[$0] << 4 | values[$0 + 1]) }
    }

    // MARK: Reading

    /// The pose in an access unit, or `nil` when it carries none. Throws when the packet is truncated
    /// (length-prefixed) or a pose message has the wrong size.
    public func pose(inAccessUnit accessUnit: [UInt8], codec: NALCodec, framing: NALFraming) throws(ReplayError) -> Pose32? {
        try read(accessUnit, codec: codec, framing: framing).pose
    }

    /// The pose in an access unit, and whether an SEI message in it claimed more bytes than its NAL
    /// unit holds (the walk stops there, as decoders stop, so a pose after it is not seen).
    public func read(_ accessUnit: [UInt8], codec: NALCodec, framing: NALFraming) throws(ReplayError) -> (pose: Pose32?, overran: Bool) {
        var overran = false
        for unit in try NALUnits.split(accessUnit, framing: framing) where unit.isSEI(accessUnit, codec: codec) {
            let walk = NALUnits.seiMessages(unit.rbsp(accessUnit, codec: codec))
            overran = overran || walk.overran
            for message in walk.messages where message.type == 5 {
                if let pose = try pose(inUserData: message.payload) { return (pose, overran) }
            }
        }
        return (nil, overran)
    }

    /// The pose in a `user_data_unregistered` payload (UUID + data, as FFmpeg exports it in
    /// `AV_FRAME_DATA_SEI_UNREGISTERED` side data), or `nil` when the UUID is not ours.
    public func pose(inUserData payload: some Collection<UInt8>) throws(ReplayError) -> Pose32? {
        guard let data = poseData(in: Array(payload)) else { return nil }
        guard let pose = Pose32(bytes: data) else {
            throw ReplayError.badInput("pose SEI carries \(data.count) bytes after its UUID, expected 32 (pose32)")
        }
        return pose
    }

    /// What follows our UUID in a user data payload (at offset 0, or 16 behind libx265's), or `nil`
    /// when the payload is not ours.
    private func poseData(in payload: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        if payload.starts(with: uuid) { return payload.dropFirst(16) }
        if payload.dropFirst(16).starts(with: uuid) { return payload.dropFirst(32) }
        return nil
    }

    private func poseData(in payload: [UInt8]) -> ArraySlice<UInt8>? { poseData(in: payload[...]) }

    /// A pose message of ours, whatever its size (a malformed one is replaced too).
    private func isPoseMessage(_ message: NALUnits.SEIMessage) -> Bool {
        message.type == 5 && poseData(in: message.payload) != nil
    }

    // MARK: Writing

    /// The `user_data_unregistered` payload for `pose`: UUID + pose32, 48 bytes. This is what an encoder
    /// is handed (FFmpeg's `AV_FRAME_DATA_SEI_UNREGISTERED` frame side data for libx264 / libx265).
    public func userDataPayload(for pose: Pose32) -> [UInt8] { uuid + pose.bytes }

    /// A complete SEI NAL unit (header, one `user_data_unregistered` message, trailing bits), with
    /// emulation prevention, without start code or length prefix.
    public func nalUnit(for pose: Pose32, codec: NALCodec) -> [UInt8] {
        let payload = userDataPayload(for: pose)
        let rbsp = [5, UInt8(payload.count)] + payload + [0x80]
        let header: [UInt8] = switch codec {
        case .h264: [0x06]  // forbidden_zero 0, nal_ref_idc 0, type 6
        case .hevc: [39 << 1, 0x01]  // type 39 (prefix SEI), layer 0, temporal id 0 (+1)
        }
        return header + NALUnits.escape(rbsp)
    }

    /// `accessUnit` with a pose SEI NAL unit for `pose` inserted just before its first slice
    /// (after any delimiter, parameter sets and other SEI). Pose messages with our UUID already there
    /// are removed first (see ``removingPose(from:codec:framing:)``), so re-embedding replaces rather than stacks.
    public func inserting(_ pose: Pose32, into accessUnit: [UInt8], codec: NALCodec, framing: NALFraming) throws(ReplayError) -> [UInt8] {
        let units = try NALUnits.split(accessUnit, framing: framing)
        guard let firstSlice = units.firstIndex(where: { $0.isVCL(accessUnit, codec: codec) }) else {
            throw ReplayError.badInput("the access unit has no slice NAL unit to put the pose SEI in front of")
        }
        let framed = try Self.framed(nalUnit(for: pose, codec: codec), framing: framing)
        return try rebuilt(accessUnit, units: units, codec: codec, framing: framing, inserting: (framed, before: firstSlice))
    }

    /// `accessUnit` without pose messages with our UUID, or `nil` when it has none: an SEI NAL unit
    /// that held only such messages goes, one that also holds others is rewritten without them. In a
    /// re-embed, a frame that gets no pose must not keep the old one.
    public func removingPose(from accessUnit: [UInt8], codec: NALCodec, framing: NALFraming) throws(ReplayError) -> [UInt8]? {
        let units = try NALUnits.split(accessUnit, framing: framing)
        let holdsPose = units.contains { unit in
            unit.isSEI(accessUnit, codec: codec)
                && NALUnits.seiMessages(unit.rbsp(accessUnit, codec: codec)).messages.contains(where: isPoseMessage)
        }
        return holdsPose ? try rebuilt(accessUnit, units: units, codec: codec, framing: framing, inserting: nil) : nil
    }

    /// `accessUnit` with the pose messages taken out of its SEI NAL units, and `insertion` (a framed
    /// NAL unit) placed before unit `before`.
    private func rebuilt(_ accessUnit: [UInt8], units: [NALUnits.Unit], codec: NALCodec, framing: NALFraming,
                         inserting insertion: (framed: [UInt8], before: Int)?) throws(ReplayError) -> [UInt8] {
        var output = Array(accessUnit[..<(units.first?.start ?? 0)])
        output.reserveCapacity(accessUnit.count + (insertion?.framed.count ?? 0))
        for (index, unit) in units.enumerated() {
            if let insertion, index == insertion.before { output += insertion.framed }
            let end = index + 1 < units.count ? units[index + 1].start : accessUnit.count
            guard unit.isSEI(accessUnit, codec: codec) else {
                output += accessUnit[unit.start..<end]
                continue
            }
            let messages = NALUnits.seiMessages(unit.rbsp(accessUnit, codec: codec)).messages
            let others = messages.filter { !isPoseMessage($0) }
            if others.count == messages.count {
                output += accessUnit[unit.start..<end]
            } else if !others.isEmpty {
                let header = accessUnit[unit.payload.lowerBound..<unit.payload.lowerBound + (codec == .h264 ? 1 : 2)]
                output += try Self.framed(Array(header) + NALUnits.escape(NALUnits.seiRBSP(others)), framing: framing)
            }
        }
        return output
    }

    /// A NAL unit with its start code or length prefix.
    private static func framed(_ nal: [UInt8], framing: NALFraming) throws(ReplayError) -> [UInt8] {
        switch framing {
        case .annexB:
            return [0, 0, 0, 1] + nal
        case .lengthPrefixed(let size):
            guard nal.count < 1 << (8 * size) else {
                throw ReplayError.processing("an SEI NAL unit of \(nal.count) bytes does not fit a \(size)-byte NAL length")
            }
            return (0..<size).reversed().map { UInt8(truncatingIfNeeded: nal.count >> (8 * $0)) } + nal
        }
    }
}

/// Byte-level NAL unit handling shared by the SEI reader and writer.
enum NALUnits {
    /// One NAL unit of a packet: its framing starts at `start`, its bytes (header + escaped RBSP) are `payload`.
    struct Unit {
        var start: Int
        var payload: Range<Int>

        func type(_ bytes: [UInt8], codec: NALCodec) -> Int? {
            switch codec {
            case .h264: payload.count >= 1 ? Int(bytes[payload.lowerBound] & 0x1F) : nil
            case .hevc: payload.count >= 2 ? Int(bytes[payload.lowerBound] >> 1 & 0x3F) : nil
            }
        }

        func isSEI(_ bytes: [UInt8], codec: NALCodec) -> Bool {
            switch (codec, type(bytes, codec: codec)) {
            case (.h264, 6), (.hevc, 39), (.hevc, 40): true
            default: false
            }
        }

        /// Slice data (VCL): H.264 types 1–5 and the SVC/MVC slice extensions 20–21; HEVC types 0–31.
        func isVCL(_ bytes: [UInt8], codec: NALCodec) -> Bool {
            guard let type = type(bytes, codec: codec) else { return false }
            return switch codec {
            case .h264: (1...5).contains(type) || type == 20 || type == 21
            case .hevc: type < 32
            }
        }

        /// The unit's RBSP after the header, emulation prevention bytes removed.
        func rbsp(_ bytes: [UInt8], codec: NALCodec) -> [UInt8] {
            let headerSize = codec == .h264 ? 1 : 2
            return NALUnits.unescape(bytes[min(payload.upperBound, payload.lowerBound + headerSize)..<payload.upperBound])
        }
    }

    /// The NAL units of a packet. Length-prefixed packets that run past their end are an error;
    /// Annex B bytes before the first start code count as the first unit's framing.
    static func split(_ bytes: [UInt8], framing: NALFraming) throws(ReplayError) -> [Unit] {
        switch framing {
        case .annexB: return splitAnnexB(bytes)
        case .lengthPrefixed(let size):
            guard (1...4).contains(size) else { throw ReplayError.badInput("NAL length size \(size) is not 1 to 4") }
            var units: [Unit] = []
            var position = 0
            while position < bytes.count {
                guard position + size <= bytes.count else {
                    throw ReplayError.badInput("truncated packet: NAL length field runs past the end")
                }
                let length = bytes[position..<position + size].reduce(0) { $0 << 8 | Int($1) }
                let start = position + size
                guard length <= bytes.count - start else {
                    throw ReplayError.badInput("truncated packet: a NAL unit of \(length) bytes runs past the end")
                }
                units.append(Unit(start: position, payload: start..<start + length))
                position = start + length
            }
            return units
        }
    }

    /// Start codes are `00 00 01`; zero bytes before one (a 4-byte start code, trailing_zero_8bits)
    /// belong to the unit that follows, so each unit's `start` is where its zeros begin.
    private static func splitAnnexB(_ bytes: [UInt8]) -> [Unit] {
        var codes: [Int] = []  // index of the 01 of each start code
        var zeros = 0
        for (index, byte) in bytes.enumerated() {
            if byte == 1, zeros >= 2 { codes.append(index) }
            zeros = byte == 0 ? zeros + 1 : 0
        }
        var units: [Unit] = []
        for (n, code) in codes.enumerated() {
            var end = n + 1 < codes.count ? codes[n + 1] - 2 : bytes.count
            // Zeros before the next start code (or at the end of the packet) are not part of this unit.
            while end > code + 1, bytes[end - 1] == 0 { end -= 1 }
            let start = n == 0 ? 0 : units[n - 1].payload.upperBound
            units.append(Unit(start: start, payload: code + 1..<end))
        }
        return units
    }

    /// Removes emulation prevention: `00 00 03` → `00 00`.
    static func unescape(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var zeros = 0
        for byte in bytes {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// Adds emulation prevention: after two zero bytes, a byte ≤ 3 gets a 03 in front of it.
    static func escape(_ rbsp: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rbsp.count + rbsp.count / 2)
        var zeros = 0
        for byte in rbsp {
            if zeros >= 2, byte <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// One message of an SEI NAL unit.
    struct SEIMessage {
        var type: Int
        var payload: ArraySlice<UInt8>
    }

    /// The messages of an SEI RBSP: payloadType and payloadSize each coded as 0xFF bytes plus a last byte.
    /// A message that runs past the end stops the walk (the rest is ignored, as decoders do): `overran`.
    static func seiMessages(_ rbsp: [UInt8]) -> (messages: [SEIMessage], overran: Bool) {
        var messages: [SEIMessage] = []
        var position = 0
        // Zero bytes after the trailing bits are padding (FFmpeg's parser drops them too).
        var end = rbsp.count
        while end > 0 && rbsp[end - 1] == 0 { end -= 1 }
        func codedValue() -> Int? {
            var value = 0
            while position < end {
                let byte = rbsp[position]
                position += 1
                value += Int(byte)
                if byte != 0xFF { return value }
            }
            return nil
        }
        // Stop at the rbsp_trailing_bits byte (0x80) that ends the NAL unit.
        while position < end, !(position == end - 1 && rbsp[position] == 0x80) {
            guard let type = codedValue(), let size = codedValue(), size <= end - position else {
                return (messages, true)
            }
            messages.append(SEIMessage(type: type, payload: rbsp[position..<position + size]))
            position += size
        }
        return (messages, false)
    }

    /// The RBSP (before emulation prevention) of an SEI NAL unit holding `messages`, trailing bits included.
    static func seiRBSP(_ messages: [SEIMessage]) -> [UInt8] {
        func coded(_ value: Int) -> [UInt8] { Array(repeating: 0xFF, count: value / 255) + [UInt8(value % 255)] }
        return messages.flatMap { coded($0.type) + coded($0.payload.count) + $0.payload } + [0x80]
    }
}

import Foundation
import Testing
@testable import ReplayKitless

/// Pose SEI at the byte level (formats.md §4), against access units written out by hand.
@Suite struct SEITests {
    static let uuid: [UInt8] = [0x16, 0x18, 0xEA, 0x80, 0x35, 0xFE, 0x4B, 0xD9, 0xB1, 0xCC, 0x01, 0x95, 0x4A, 0x32, 0xFB, 0x00]
    static let x265UUID: [UInt8] = [0x2C, 0xA2, 0xDE, 0x09, 0xB5, 0x17, 0x47, 0xDB, 0xBB, 0x55, 0xA4, 0xFE, 0x7F, 0xC2, 0xFC, 0x4E]
    static let x264UUID: [UInt8] = [0xDC, 0x45, 0xE9, 0xBD, 0xE6, 0xD9, 0x48, 0xB7, 0x96, 0x2C, 0xD8, 0x20, 0xD9, 0x23, 0xEE, 0xEF]

    /// px 0, py 1, pz with bit pattern 0x3E010000 (bytes 00 00 01 3E: a start code pattern), pitch 0, yaw 0,
    /// roll 0.25, zNear 0.001, fovY 60.
    static let poseBytes: [UInt8] = [
        0x00, 0x00, 0x00, 0x00,  0x00, 0x00, 0x80, 0x3F,  0x00, 0x00, 0x01, 0x3E,  0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00,  0x00, 0x00, 0x80, 0x3E,  0x6F, 0x12, 0x83, 0x3A,  0x00, 0x00, 0x70, 0x42,
    ]
    static var pose: Pose32 { Pose32(bytes: poseBytes)! }

    /// The SEI RBSP body after the header (payloadType 5, size 48, UUID, pose, trailing bits), escaped by hand:
    /// the UUID's last 00 plus px's four zeros and py's two make seven zeros before 80 → 03 after every second;
    /// "3F 00 00 01" gets 03 before 01; pitch, yaw and roll's two leading zeros make ten zeros before 80 3E.
    static let escapedBody: [UInt8] = [0x05, 0x30] + uuid.dropLast()
        + [0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x00, 0x80, 0x3F]
        + [0x00, 0x00, 0x03, 0x01, 0x3E]
        + [0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x00, 0x00, 0x80, 0x3E]
        + [0x6F, 0x12, 0x83, 0x3A, 0x00, 0x00, 0x70, 0x42, 0x80]

    static let h264SEI: [UInt8] = [0x06] + escapedBody
    static let hevcSEI: [UInt8] = [0x4E, 0x01] + escapedBody

    // H.264 units of an IDR access unit (headers: 09 AUD, 67 SPS, 68 PPS, 06 SEI, 65 IDR slice).
    static let aud: [UInt8] = [0x09, 0xF0]
    static let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E, 0xDA, 0x02, 0x80]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
    static let slice: [UInt8] = [0x65, 0x88, 0x84, 0x00, 0x33, 0xFF]
    /// x264's version string SEI: 300 bytes of text, so payloadSize 316 is coded FF 3D (255 + 61).
    static let x264SEI: [UInt8] = [0x06, 0x05, 0xFF, 0x3D] + x264UUID + Array(String(repeating: "x264 core ", count: 30).utf8) + [0x80]

    static func annexB(_ units: [[UInt8]], shortStartCodes: Bool = false) -> [UInt8] {
        units.enumerated().flatMap { index, unit in (shortStartCodes && index > 0 ? [0, 0, 1] : [0, 0, 0, 1]) + unit }
    }

    static func lengthPrefixed(_ units: [[UInt8]], size: Int) -> [UInt8] {
        units.flatMap { unit in (0..<size).reversed().map { UInt8(truncatingIfNeeded: unit.count >> (8 * $0)) } + unit }
    }

    @Test func buildsTheEscapedNALUnitByHand() {
        let sei = PoseSEI()
        #expect(sei.uuid == Self.uuid)
        #expect(sei.userDataPayload(for: Self.pose) == Self.uuid + Self.poseBytes)
        #expect(sei.nalUnit(for: Self.pose, codec: .h264) == Self.h264SEI)
        #expect(sei.nalUnit(for: Self.pose, codec: .hevc) == Self.hevcSEI)
    }

    @Test func readsH264AnnexBPastX264VersionString() throws {
        let au = Self.annexB([Self.aud, Self.sps, Self.pps, Self.x264SEI, Self.h264SEI, Self.slice], shortStartCodes: true)
        let pose = try PoseSEI().pose(inAccessUnit: au, codec: .h264, framing: .annexB)
        #expect(pose?.bytes == Self.poseBytes)
        // Without our SEI: nothing, even though x264's user data is there.
        let plain = Self.annexB([Self.sps, Self.pps, Self.x264SEI, Self.slice])
        #expect(try PoseSEI().pose(inAccessUnit: plain, codec: .h264, framing: .annexB) == nil)
    }

    @Test func readsLengthPrefixedUnitsWithTheSizeFromExtradata() throws {
        // avcC: version 1, profile, compat, level, then 0xFF = 6 reserved bits + lengthSizeMinusOne 3.
        let avcC: [UInt8] = [0x01, 0x42, 0xC0, 0x1E, 0xFF, 0xE1, 0x00]
        #expect(try NALFraming(extradata: avcC, codec: .h264) == .lengthPrefixed(4))
        #expect(try NALFraming(extradata: [0x01, 0x42, 0xC0, 0x1E, 0xFD, 0xE1, 0x00], codec: .h264) == .lengthPrefixed(2))
        #expect(try NALFraming(extradata: [], codec: .h264) == .annexB)
        #expect(try NALFraming(extradata: [0, 0, 0, 1] + Self.sps, codec: .h264) == .annexB)
        #expect(throws: ReplayError.self) { try NALFraming(extradata: [0x02, 0x42], codec: .h264) }
        var hvcC = [UInt8](repeating: 0, count: 23)
        hvcC[0] = 1
        hvcC[21] = 0x0F  // constant frame rate etc. in the high bits, lengthSizeMinusOne 3
        #expect(try NALFraming(extradata: hvcC, codec: .hevc) == .lengthPrefixed(4))

        for size in [1, 2, 4] {
            // x264's 321-byte SEI does not fit a 1-byte length.
            let au = Self.lengthPrefixed((size > 1 ? [Self.x264SEI] : []) + [Self.h264SEI, Self.slice], size: size)
            let pose = try PoseSEI().pose(inAccessUnit: au, codec: .h264, framing: .lengthPrefixed(size))
            #expect(pose?.bytes == Self.poseBytes, "length size \(size)")
        }
        let truncated = Self.lengthPrefixed([Self.h264SEI, Self.slice], size: 4).dropLast()
        #expect(throws: ReplayError.self) {
            try PoseSEI().pose(inAccessUnit: Array(truncated), codec: .h264, framing: .lengthPrefixed(4))
        }
    }

    @Test func readsHEVCAndX265sExtraUUID() throws {
        let vps: [UInt8] = [0x40, 0x01, 0x0C, 0x01], hevcSPS: [UInt8] = [0x42, 0x01, 0x01, 0x01]
        let hevcPPS: [UInt8] = [0x44, 0x01, 0xC1, 0x72], idr: [UInt8] = [0x26, 0x01, 0xAF, 0x09, 0x40]
        let au = Self.annexB([vps, hevcSPS, hevcPPS, Self.hevcSEI, idr])
        #expect(try PoseSEI().pose(inAccessUnit: au, codec: .hevc, framing: .annexB)?.bytes == Self.poseBytes)
        // The same bytes read as H.264 find no SEI (0x4E is H.264 type 14).
        #expect(try PoseSEI().pose(inAccessUnit: au, codec: .h264, framing: .annexB) == nil)

        // libx265: payloadSize 64 = x265's UUID, then ours, then the pose. Escaping as before, offset by the x265 UUID.
        let x265SEI: [UInt8] = [0x4E, 0x01, 0x05, 0x40] + Self.x265UUID + Array(Self.escapedBody.dropFirst(2))
        let x265AU = Self.lengthPrefixed([vps, hevcSPS, hevcPPS, x265SEI, idr], size: 4)
        #expect(try PoseSEI().pose(inAccessUnit: x265AU, codec: .hevc, framing: .lengthPrefixed(4))?.bytes == Self.poseBytes)
    }

    @Test func userUUIDReplacesTheDefault() throws {
        let custom = try PoseSEI(uuid: "00112233-4455-6677-8899-AABBCCDDEEFF")
        #expect(custom.uuid == [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF])
        #expect(try PoseSEI(uuid: "1618ea8035fe4bd9b1cc01954a32fb00") == PoseSEI())
        for bad in ["", "1618ea80-35fe-4bd9-b1cc-01954a32fb0", "1618ea80-35fe-4bd9-b1cc-01954a32fb0g", "+618ea80-35fe-4bd9-b1cc-01954a32fb00"] {
            #expect(throws: ReplayError.self) { try PoseSEI(uuid: bad) }
        }
        let au = Self.annexB([Self.h264SEI, Self.slice])
        #expect(try custom.pose(inAccessUnit: au, codec: .h264, framing: .annexB) == nil)
        let own = custom.nalUnit(for: Self.pose, codec: .h264)
        #expect(try custom.pose(inAccessUnit: Self.annexB([own, Self.slice]), codec: .h264, framing: .annexB)?.bytes == Self.poseBytes)
    }

    @Test func skipsOtherMessagesWithExtendedTypesAndRejectsShortPoses() throws {
        // Message 1: payloadType FF 05 = 260, size 2. Message 2: ours.
        let body = [0xFF, 0x05, 0x02, 0xAB, 0xCD] + Array(Self.escapedBody)
        let au = Self.annexB([[0x06] + body, Self.slice])
        #expect(try PoseSEI().pose(inAccessUnit: au, codec: .h264, framing: .annexB)?.bytes == Self.poseBytes)
        // Our UUID followed by only 4 bytes: an error, not a silent miss.
        let short = Self.annexB([[0x06, 0x05, 0x14] + Self.uuid + [1, 2, 3, 4, 0x80], Self.slice])
        #expect(throws: ReplayError.self) { try PoseSEI().pose(inAccessUnit: short, codec: .h264, framing: .annexB) }
        // A message whose size runs past the end is ignored.
        let broken = Self.annexB([[0x06, 0x05, 0x60] + Self.uuid + [0x80], Self.slice])
        #expect(try PoseSEI().pose(inAccessUnit: broken, codec: .h264, framing: .annexB) == nil)
    }

    @Test func insertsBeforeTheFirstSlice() throws {
        let sei = PoseSEI()
        let units = [Self.aud, Self.sps, Self.pps, Self.x264SEI, Self.slice, [0x01, 0x9A, 0x02]]
        let au = Self.annexB(units, shortStartCodes: true)
        let inserted = try sei.inserting(Self.pose, into: au, codec: .h264, framing: .annexB)
        // Everything up to the slice's 3-byte start code, then 00 00 00 01 + our unit, then the slices unchanged.
        let head = Self.annexB(Array(units.prefix(4)), shortStartCodes: true)
        let expected = head + [0, 0, 0, 1] + Self.h264SEI + [0, 0, 1] + Self.slice + [0, 0, 1, 0x01, 0x9A, 0x02]
        #expect(inserted == expected)
        #expect(try sei.pose(inAccessUnit: inserted, codec: .h264, framing: .annexB)?.bytes == Self.poseBytes)

        let prefixed = Self.lengthPrefixed(units, size: 4)
        let insertedPrefixed = try sei.inserting(Self.pose, into: prefixed, codec: .h264, framing: .lengthPrefixed(4))
        let expectedPrefixed = Self.lengthPrefixed([Self.aud, Self.sps, Self.pps, Self.x264SEI, Self.h264SEI, Self.slice,
                                                    [0x01, 0x9A, 0x02]], size: 4)
        #expect(insertedPrefixed == expectedPrefixed)

        // HEVC: before the first VCL unit (type 19, header 26 01).
        let hevc = Self.lengthPrefixed([[0x46, 0x01, 0x50], [0x26, 0x01, 0xAF]], size: 2)
        #expect(try sei.inserting(Self.pose, into: hevc, codec: .hevc, framing: .lengthPrefixed(2))
                == Self.lengthPrefixed([[0x46, 0x01, 0x50], Self.hevcSEI, [0x26, 0x01, 0xAF]], size: 2))
    }

    @Test func reEmbeddingReplacesTheOldPose() throws {
        let old = Pose32(position: [9, 9, 9], euler: .zero, zNear: 0.1, fovY: 30)
        let sei = PoseSEI()
        let once = try sei.inserting(old, into: Self.annexB([Self.sps, Self.slice]), codec: .h264, framing: .annexB)
        let twice = try sei.inserting(Self.pose, into: once, codec: .h264, framing: .annexB)
        #expect(twice == Self.annexB([Self.sps, Self.h264SEI, Self.slice]))
    }

    /// A pose message sharing an SEI NAL unit with other messages is taken out of it (the unit is
    /// rewritten with the others, in order), whether a new pose goes in or none; and a frame without
    /// pose SEI is left alone.
    @Test(arguments: [NALFraming.annexB, .lengthPrefixed(4)])
    func reEmbeddingTakesThePoseOutOfAMixedSEIUnit(framing: NALFraming) throws {
        func accessUnit(_ units: [[UInt8]]) -> [UInt8] {
            framing == .annexB ? Self.annexB(units) : Self.lengthPrefixed(units, size: 4)
        }
        let sei = PoseSEI()
        // Message 1: payloadType FF 05 = 260, size 2. Then our pose (escapedBody ends with the trailing bits).
        let other: [UInt8] = [0xFF, 0x05, 0x02, 0xAB, 0xCD]
        let mixed = accessUnit([Self.sps, [0x06] + other + Self.escapedBody, Self.slice])
        let withoutPose = accessUnit([Self.sps, [0x06] + other + [0x80], Self.slice])
        #expect(try sei.removingPose(from: mixed, codec: .h264, framing: framing) == withoutPose)
        // Pose message first, then x264's version string (a 300-byte payload: size coded FF 3D).
        let x264Message = Array(Self.x264SEI.dropFirst().dropLast())
        let poseFirst = accessUnit([[0x06] + Self.escapedBody.dropLast() + x264Message + [0x80], Self.slice])
        #expect(try sei.removingPose(from: poseFirst, codec: .h264, framing: framing) == accessUnit([Self.x264SEI, Self.slice]))

        let newPose = Pose32(position: [9, 9, 9], euler: .zero, zNear: 0.1, fovY: 30)
        let replaced = try sei.inserting(newPose, into: mixed, codec: .h264, framing: framing)
        #expect(replaced == accessUnit([Self.sps, [0x06] + other + [0x80], sei.nalUnit(for: newPose, codec: .h264), Self.slice]))
        #expect(try sei.pose(inAccessUnit: replaced, codec: .h264, framing: framing) == newPose)
        #expect(try sei.removingPose(from: withoutPose, codec: .h264, framing: framing) == nil)
    }

    /// A message whose size runs past its NAL unit stops the walk, and the reader says so.
    @Test func aMessageRunningPastItsUnitIsReported() throws {
        let broken = Self.annexB([[0x06, 0x05, 0x60] + Self.uuid + [0x80], Self.slice])
        let read = try PoseSEI().read(broken, codec: .h264, framing: .annexB)
        #expect(read.pose == nil && read.overran)
        // Zero bytes after the trailing bits are padding, not a message.
        let padded = Self.annexB([Self.h264SEI + [0, 0], Self.slice])
        let lengthPadded = Self.lengthPrefixed([Self.h264SEI + [0, 0], Self.slice], size: 4)
        for (unit, framing) in [(padded, NALFraming.annexB), (lengthPadded, .lengthPrefixed(4))] {
            let read = try PoseSEI().read(unit, codec: .h264, framing: framing)
            #expect(read.pose?.bytes == Self.poseBytes && !read.overran)
        }
    }

    @Test func insertingNeedsASlice() {
        #expect(throws: ReplayError.self) {
            try PoseSEI().inserting(Self.pose, into: Self.annexB([Self.sps, Self.pps]), codec: .h264, framing: .annexB)
        }
    }
}

import FxTestSupport
import CFFmpeg
import Foundation
import Testing
@testable import ReplayKitless

/// Masks out of decoded pictures of every kind of pixel format.
@Suite struct BackgroundMaskExtractionTests {
    /// A frame of `format` whose planes are filled by `fill(plane index, x, y)`.
    static func frame(_ format: AVPixelFormat, width: Int = 6, height: Int = 4,
                      fill: (Int, Int, Int) -> UInt8) throws -> Frame {
        let frame = try Frame(width: width, height: height, format: format)
        let descriptor = av_pix_fmt_desc_get(format)!.pointee
        withUnsafeBytes(of: frame.pointer.pointee.data) { data in
            withUnsafeBytes(of: frame.pointer.pointee.linesize) { lines in
                for index in 0..<4 {
                    guard let base = data.load(fromByteOffset: index * 8, as: UnsafeMutablePointer<UInt8>?.self) else { continue }
                    if format == AV_PIX_FMT_PAL8 && index == 1 { continue }
                    let stride = Int(lines.load(fromByteOffset: index * 4, as: Int32.self))
                    let chroma = index == 1 || index == 2
                    let w = chroma && descriptor.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0 ? -((-width) >> Int(descriptor.log2_chroma_w)) : width
                    let h = chroma && descriptor.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0 ? -((-height) >> Int(descriptor.log2_chroma_h)) : height
                    let bytesPerSample = format == AV_PIX_FMT_RGB24 ? 3 : format == AV_PIX_FMT_RGBA ? 4 : format == AV_PIX_FMT_YA8 ? 2 : 1
                    for y in 0..<h { for x in 0..<(w * bytesPerSample) { base[y * stride + x] = fill(index, x, y) } }
                }
            }
        }
        return frame
    }

    /// Outlives the planes it hands out.
    let extractor: MaskExtractor

    init() throws { extractor = try MaskExtractor() }

    static func values(_ plane: Plane) -> [UInt8] {
        (0..<plane.height).flatMap { y in (0..<plane.width).map { plane[$0, y] } }
    }

    @Test func greyPicturesAreUsedAsTheyAre() throws {
        let grey = try Self.frame(AV_PIX_FMT_GRAY8) { _, x, y in UInt8(x * 40 + y) }
        let (plane, limited) = try extractor.extract(grey, source: "test")
        #expect(!limited)
        #expect(Self.values(plane) == (0..<4).flatMap { y in (0..<6).map { UInt8($0 * 40 + y) } })
    }

    @Test func limitedRangeLumaIsExpandedToFullRange() throws {
        // Luma 16 → 0, 235 → 255, 125.5 would be the middle: 126 → round(110·255/219) = 128.
        let picture = try Self.frame(AV_PIX_FMT_YUV420P) { index, x, _ in index == 0 ? [16, 235, 126, 10, 240, 30][x] : 128 }
        let (plane, limited) = try extractor.extract(picture, source: "test")
        #expect(limited)
        let copy = TestPlane(width: plane.width, height: plane.height, fill: 0)
        MaskExtractor.expandLimitedRange(plane, into: copy.plane)
        // (30 − 16) · 255 / 219 = 16.3 → 16.
        #expect(copy.rows[0] == [0, 255, 128, 0, 255, 16])
        #expect(MaskExtractor.limitedToFull.enumerated().allSatisfy { v, out in
            Int(out) == min(255, max(0, Int((Double(v - 16) * 255 / 219).rounded())))
        })
    }

    @Test func rgbGreyGivesItsValueBack() throws {
        let rgb = try Self.frame(AV_PIX_FMT_RGB24) { _, x, y in UInt8((x / 3) * 50 + y) }
        let (plane, limited) = try extractor.extract(rgb, source: "test")
        #expect(!limited)
        #expect(Self.values(plane) == (0..<4).flatMap { y in (0..<6).map { UInt8($0 * 50 + y) } })
    }

    @Test func alphaPlanesWinOverColour() throws {
        let rgba = try Self.frame(AV_PIX_FMT_RGBA) { _, x, y in x % 4 == 3 ? UInt8(x / 4 * 40 + y) : 7 }
        #expect(Self.values(try extractor.extract(rgba, source: "test").plane)
                == (0..<4).flatMap { y in (0..<6).map { UInt8($0 * 40 + y) } })
        let yuva = try Self.frame(AV_PIX_FMT_YUVA420P) { index, x, y in index == 3 ? UInt8(200 - x - y) : 16 }
        let (plane, limited) = try extractor.extract(yuva, source: "test")
        let ya = try Self.frame(AV_PIX_FMT_YA8) { _, x, y in x % 2 == 1 ? UInt8(x * 20 + y) : 3 }
        let greyAlpha: [UInt8] = (0..<4).flatMap { (y: Int) -> [UInt8] in (0..<6).map { (x: Int) -> UInt8 in UInt8((2 * x + 1) * 20 + y) } }
        #expect(Self.values(try extractor.extract(ya, source: "test").plane) == greyAlpha)
        #expect(!limited)
        #expect(Self.values(plane) == (0..<4).flatMap { y in (0..<6).map { UInt8(200 - $0 - y) } })
    }

    @Test func palettedPicturesUseAlphaOnlyWhenThePaletteHasSome() throws {
        let picture = try Self.frame(AV_PIX_FMT_PAL8) { _, x, _ in UInt8(x) }
        let palette = UnsafeMutableRawPointer(picture.pointer.pointee.data.1!).assumingMemoryBound(to: UInt32.self)
        // Opaque grey palette: entry i is grey 40·i, so the mask is the grey level.
        for i in 0..<256 { palette[i] = 0xFF00_0000 | UInt32(min(255, 40 * i)) * 0x010101 }
        #expect(Self.values(try extractor.extract(picture, source: "test").plane).prefix(6) == [0, 40, 80, 120, 160, 200])
        // A transparent entry: the palette's alpha is the mask.
        for i in 0..<256 { palette[i] = UInt32(255 - i) << 24 | 0x00FF_FFFF }
        #expect(Self.values(try extractor.extract(picture, source: "test").plane).prefix(6) == [255, 254, 253, 252, 251, 250])
    }
}

/// Pairing masks with video frames by time, and what happens when masks are missing.
@Suite struct BackgroundMaskPairingTests {
    static func time(_ index: Int, at seconds: Double, lasting duration: Double = 1.0 / 30) -> FrameTime {
        FrameTime(index: index, pts: Int64(seconds * 90000), seconds: seconds, streamSeconds: seconds, duration: duration)
    }

    /// The uniform value of the mask the reader gives frame `index` at `seconds` (nil: keep original).
    static func maskValue(_ reader: MaskReader, _ index: Int, at seconds: Double, size: Int = 8) throws -> UInt8? {
        let plane = TestPlane(width: size, height: size, fill: 1)
        guard try reader.mask(for: time(index, at: seconds), into: plane.plane) else { return nil }
        #expect(Set(plane.values).count == 1, "mask not uniform: \(Set(plane.values))")
        return plane.values[0]
    }

    @Test func tenFramesPerSecondMasksCoverThreeVideoFramesEach() throws {
        let dir = try makeScratch()
        let path = dir.appendingPathComponent("mask10.mkv").path
        try writeGreyVideo(path, width: 8, height: 8, rate: "10", frames: [10, 60, 110, 160].map { Array(repeating: $0, count: 64) })
        let reader = try MaskReader(source: .video(path: path), policy: .fail)
        // 30 fps video, with up to ±6 ms of jitter: frames 0–2 take mask 0, 3–5 mask 1, …
        let jitter = [0.0, 0.006, -0.006, -0.006, 0.005, 0.006, -0.004, 0.0, 0.006, -0.006, 0.0, 0.006]
        var values: [UInt8?] = []
        for index in 0..<12 { values.append(try Self.maskValue(reader, index, at: Double(index) / 30 + jitter[index])) }
        #expect(values == [10, 10, 10, 60, 60, 60, 110, 110, 110, 160, 160, 160])
        #expect(reader.held == 0 && reader.kept == 0)
        // Past the last mask's end (0.4 s) there is none: fail names the frame.
        #expect(throws: ReplayError.self) { try Self.maskValue(reader, 12, at: 0.4) }
    }

    @Test func maskTimesCountFromTheirFirstFrameAndSizesAreScaled() throws {
        let dir = try makeScratch()
        let path = dir.appendingPathComponent("late.mp4").path
        // 4×4 masks starting at 2.5 s, 15 fps, in limited range luma: 235 → 255, 16 → 0.
        try writeLumaVideo(path, size: 4, timestamps: (0..<6).map { 225_000 + Int64($0) * 6000 }, lumas: [235, 16, 235, 16, 235, 16])
        let reader = try MaskReader(source: .video(path: path), policy: .keepOriginal)
        let values = try (0..<12).map { try Self.maskValue(reader, $0, at: Double($0) / 30) }
        #expect(values == [255, 255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 0])
    }

    @Test(arguments: MissingMaskPolicy.allCases)
    func aMaskStreamThatEndsEarlyFollowsThePolicy(_ policy: MissingMaskPolicy) throws {
        let dir = try makeScratch()
        let path = dir.appendingPathComponent("short.mkv").path
        try writeGreyVideo(path, width: 8, height: 8, rate: "30", frames: (0..<5).map { Array(repeating: UInt8(50 * $0), count: 64) })
        let reader = try MaskReader(source: .video(path: path), policy: policy)
        var values: [UInt8?] = []
        do {
            for index in 0..<8 { values.append(try Self.maskValue(reader, index, at: Double(index) / 30)) }
        } catch let error as ReplayError {
            #expect(policy == .fail)
            #expect(error.kind == .badInput && error.message.contains("frame 5") && error.message.contains("short.mkv"))
        }
        switch policy {
        case .hold: #expect(values == [0, 50, 100, 150, 200, 200, 200, 200] && reader.held == 3)
        case .keepOriginal: #expect(values == [0, 50, 100, 150, 200, nil, nil, nil] && reader.kept == 3)
        case .fail: #expect(values == [0, 50, 100, 150, 200])
        }
    }

    /// 30 fps masks with frames 3 and 4 missing. Matroska records each picture's own duration, so
    /// the hole is missing masks (held); MP4 records the time to the next picture, so mask 2 is
    /// shown for three frames and nothing is missing.
    @Test(arguments: [("holes.mkv", VideoCodec.ffv1, 2), ("holes.mp4", VideoCodec.h264, 0)])
    func aHoleInAMaskStreamIsMissingWhereTheContainerSaysSo(name: String, codec: VideoCodec, held: Int) throws {
        let dir = try makeScratch()
        let path = dir.appendingPathComponent(name).path
        let kept = [0, 1, 2, 5, 6]
        try writeLumaVideo(path, size: 8, timestamps: kept.map { Int64($0) * 3000 }, lumas: kept.map { UInt8(20 + 30 * $0) }, codec: codec)
        let reader = try MaskReader(source: .video(path: path), policy: .hold)
        let values = try (0..<7).map { try Self.maskValue(reader, $0, at: Double($0) / 30) }
        let expected = [0, 1, 2, 2, 2, 5, 6].map { MaskExtractor.limitedToFull[20 + 30 * $0] }
        #expect(values == expected)
        #expect(reader.held == held)
    }

    @Test func maskVideosAreTurnedUprightByTheirOwnRotation() throws {
        let dir = try makeScratch()
        let path = dir.appendingPathComponent("turned.mp4").path
        var settings = EncoderSettings()
        settings.preset = "ultrafast"
        settings.crf = 0
        // Stored 8×4 with the left half foreground, shown turned 90° clockwise: 4×8, top half foreground.
        let writer = try MediaWriter(path: path, video: .init(size: PictureSize(width: 8, height: 4), timeBase: Rational(1, 30),
                                                              encoder: settings, rotation: 90))
        for index in 0..<2 {
            try writer.addVideoFrame(pts: Int64(index), duration: 1) { image in
                image.fill(YUVColor(y: 16, cb: 128, cr: 128))
                for y in 0..<4 { for x in 0..<4 { image.luma[x, y] = 235 } }
            }
        }
        try writer.finish()
        let reader = try MaskReader(source: .video(path: path), policy: .fail)
        let plane = TestPlane(width: 4, height: 8, fill: 1)
        #expect(try reader.mask(for: Self.time(0, at: 0), into: plane.plane))
        #expect(plane.rows == Array(repeating: [255, 255, 255, 255], count: 4) + Array(repeating: [0, 0, 0, 0], count: 4))
    }

    @Test func aSingleImageIsAStillMaskForEveryFrame() throws {
        let dir = try makeScratch()
        let path = dir.appendingPathComponent("person.png").path
        try writeRawImage(path, width: 8, height: 8, pixelFormat: "gray", bytes: Array(repeating: 77, count: 64))
        let reader = try MaskReader(source: .video(path: path), policy: .fail)
        for index in 0..<40 { #expect(try Self.maskValue(reader, index, at: Double(index) / 30) == 77) }
        #expect(reader.held == 0)
    }

    @Test func imageSequencesPairByNumberAndGapsAreMissing() throws {
        let dir = try makeScratch()
        for number in [0, 1, 2, 4] {
            try writeRawImage(dir.appendingPathComponent(String(format: "mask_%03d.png", number)).path, width: 4, height: 4,
                              pixelFormat: "gray", bytes: Array(repeating: UInt8(10 + number), count: 16))
        }
        let pattern = dir.appendingPathComponent("mask_%03d.png").path
        let keep = try MaskReader(source: .imageSequence(pattern: pattern), policy: .keepOriginal)
        // Times do not matter for image sequences, only the frame index.
        let kept = try (0..<6).map { try Self.maskValue(keep, $0, at: 5.0 + Double($0) * 0.3) }
        #expect(kept == [10, 11, 12, nil, 14, nil] && keep.kept == 2)
        let hold = try MaskReader(source: .imageSequence(pattern: pattern), policy: .hold)
        #expect(try (0..<6).map { try Self.maskValue(hold, $0, at: 0) } == [10, 11, 12, 12, 14, 14])
    }

    @Test func missingSourcesFailAtOnceNamingTheFile() throws {
        let dir = try makeScratch()
        let missing = dir.appendingPathComponent("nope.mp4").path
        #expect(throws: ReplayError.badInput("\(missing): no such file")) { try MaskReader(source: .video(path: missing), policy: .hold) }
        try writeRawImage(dir.appendingPathComponent("m_1.png").path, width: 4, height: 4, pixelFormat: "gray", bytes: Array(repeating: 0, count: 16))
        do {
            _ = try MaskReader(source: .imageSequence(pattern: dir.appendingPathComponent("m_%d.png").path), policy: .hold)
            Issue.record("a sequence without image 0 was accepted")
        } catch {
            #expect(error.kind == .badInput && error.message.contains("m_0.png"))
        }
        let garbage = dir.appendingPathComponent("garbage.mkv").path
        try Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: garbage))
        #expect(throws: ReplayError.self) { try MaskReader(source: .video(path: garbage), policy: .hold) }
    }
}

// MARK: - Fixtures made with the ffmpeg command-line tool and the project's own writer

func makeScratch() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("fxreplay-bg-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}


/// Square frames of uniform limited-range luma at the given timestamps (1/90000), with the project's writer.
func writeLumaVideo(_ path: String, size: Int, timestamps: [Int64], lumas: [UInt8], codec: VideoCodec = .h264) throws {
    var settings = EncoderSettings()
    settings.codec = codec
    settings.preset = "ultrafast"
    settings.crf = 0
    let writer = try MediaWriter(path: path, video: .init(size: PictureSize(width: size, height: size), timeBase: Rational(1, 90000),
                                                          encoder: settings))
    for (index, pts) in timestamps.enumerated() {
        let next = index + 1 < timestamps.count ? timestamps[index + 1] : pts + 3000
        try writer.addVideoFrame(pts: pts, duration: min(3000, next - pts)) { $0.fill(YUVColor(y: lumas[index], cb: 128, cr: 128)) }
    }
    try writer.finish()
}

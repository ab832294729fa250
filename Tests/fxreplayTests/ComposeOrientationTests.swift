import Foundation
import Testing
import FxTestSupport
@testable import ReplayKitless

/// Phone participants (formats.md §9): pictures stored sideways or mirrored under an MP4 display
/// matrix are composed as `render CALL --stream ID` shows them, upright and mirrored; names sit
/// at the picture's corner; pip insets take their picture's shape; the contact sheet labels
/// below its thumbnails and starts where someone is seen. Every picture carries its frame code
/// (index and tag) drawn upright, so a wrong turn or a missing mirror reads as no code at all.
@Suite(.serialized) struct ComposeOrientationTests {
    /// Shown 180 × 240 (portrait, stored 240 × 180 turned 90° or 270°) and 240 × 180 (stored
    /// mirrored), ten frames at 10 fps from call time `start`.
    static let portrait = PictureSize(width: 180, height: 240), landscape = PictureSize(width: 240, height: 180)
    static func phoneCall(in folder: URL, start: Double = 0) throws -> (manifest: String, streams: [FixtureStream]) {
        func video(_ size: PictureSize, tag: Int, rotation: Int = 0, mirrored: Bool = false) -> FixtureVideo {
            var video = FixtureVideo.constant(size: size, fps: 10, duration: 1.0, tag: tag)
            video.rotation = rotation
            video.mirrored = mirrored
            return video
        }
        let streams = [
            FixtureStream(id: "p90", name: "Ninety", tracks: [FixtureTrack(file: "p90.mp4", video: video(portrait, tag: 9, rotation: 90), start: start)]),
            FixtureStream(id: "p270", name: "Twoseventy", tracks: [FixtureTrack(file: "p270.mp4", video: video(portrait, tag: 27, rotation: 270), start: start)]),
            FixtureStream(id: "mir", name: "Mirror", tracks: [FixtureTrack(file: "mir.mp4", video: video(landscape, tag: 33, mirrored: true), start: start)]),
        ]
        return (try CallFixtures.writeCallManifest(streams, in: folder), streams)
    }

    /// Frames of a lossless video, decoded by the ffmpeg CLI (which turns a display matrix's quarter
    /// turns upright itself) at the size given.
    static func gray(_ path: String, size: PictureSize) throws -> [GrayFrame] {
        let raw = path + ".gray"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        try runFFmpegCLI(["-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", raw])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))), count = size.width * size.height
        return stride(from: 0, to: bytes.count - count + 1, by: count).map {
            GrayFrame(width: size.width, height: size.height, pixels: Array(bytes[$0..<$0 + count]))
        }
    }

    /// `frame` scaled into `rect` (the mean of the source pixels each target pixel covers), against
    /// the composed picture there: the mean absolute luma difference.
    static func difference(_ frame: GrayFrame, scaledInto rect: FxTestSupport.PixelRect, of composed: GrayFrame, mirrored: Bool = false) -> Double {
        var total = 0.0
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                let x0 = x * frame.width / rect.width, x1 = max(x0 + 1, (x + 1) * frame.width / rect.width)
                let y0 = y * frame.height / rect.height, y1 = max(y0 + 1, (y + 1) * frame.height / rect.height)
                var sum = 0
                for sy in y0..<y1 { for sx in x0..<x1 { sum += Int(frame[mirrored ? frame.width - 1 - sx : sx, sy]) } }
                total += abs(Double(sum) / Double((x1 - x0) * (y1 - y0)) - Double(composed[rect.x + x, rect.y + y]))
            }
        }
        return total / Double(rect.width * rect.height)
    }

    @Test func phonePicturesAreComposedAsRenderShowsThem() throws {
        let folder = try ComposeCommandTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (manifest, streams) = try Self.phoneCall(in: folder)
        // The fixture itself, as the ffmpeg CLI turns it: upright.
        for (file, tag) in [("p90.mp4", 9), ("p270.mp4", 27)] {
            let first = try #require(try Self.gray(folder.appendingPathComponent(file).path, size: Self.portrait).first)
            #expect(FrameCode.read(first, picture: FxTestSupport.PixelRect(x: 0, y: 0, width: 180, height: 240))?.tag == tag, "\(file) as ffmpeg shows it")
        }
        let output = folder.appendingPathComponent("out.mkv").path
        let run = try runFxreplay(["compose", manifest, "-o", output, "--size", "640x480", "--fps", "10", "--codec", "ffv1", "--progress", "none"])
        try #require(run.status == 0, "\(run.stderr)")
        let composed = try GrayVideo.read(output)
        #expect(composed.count == 10)
        let cells = ComposeCommandTests.grid(3, 640, 480)
        for (stream, cell) in zip(streams, cells) {
            let video = try #require(stream.tracks[0].video)
            let rendered = folder.appendingPathComponent("\(stream.id).mkv").path
            let render = try runFxreplay(["render", manifest, "--stream", stream.id, "-o", rendered, "--codec", "ffv1", "--progress", "none"])
            try #require(render.status == 0, "\(render.stderr)")
            let upright = try Self.gray(rendered, size: video.size)
            let picture = FxTestSupport.PixelRect.contain(video.size, in: cell)
            for (k, frame) in composed.enumerated() {
                let code = FrameCode.read(frame, picture: picture)
                #expect(code?.index == k && code?.tag == video.tag, "\(stream.id), output frame \(k): read \(String(describing: code)) in \(picture)")
                #expect(FrameCode.read(upright[k], picture: FxTestSupport.PixelRect(x: 0, y: 0, width: video.size.width, height: video.size.height))?.index == k)
                // The tile is render's picture scaled into it; mirrored, it would not be.
                let same = Self.difference(upright[k], scaledInto: picture, of: frame)
                let flipped = Self.difference(upright[k], scaledInto: picture, of: frame, mirrored: true)
                #expect(same < 8 && flipped > 20, "\(stream.id), frame \(k): differs from render's picture by \(same) (mirrored: \(flipped))")
            }
        }
        // probe CALL names each file's turn and mirroring, as probe FILE does.
        let probe = try runFxreplay(["probe", manifest])
        #expect(probe.status == 0)
        let lines = probe.stdout.split(separator: "\n")
        func describes(_ file: String, _ words: String) -> Bool {
            guard let index = lines.firstIndex(where: { $0.contains(file + ":") }), index + 1 < lines.count else { return false }
            return lines[index + 1].contains(words)
        }
        #expect(describes("p90.mp4", "rotation 90° clockwise") && describes("p270.mp4", "rotation 270° clockwise")
                && describes("mir.mp4", "mirrored") && !describes("mir.mp4", "rotation"), "\(probe.stdout)")
    }

    /// A stream's own effects (a job's `streams:`) see its picture upright, as `render` gives it
    /// to them: `mirror` on the 90° phone flips the upright picture left to right, so its tile
    /// reads, flipped back, as frame `k`, and not as it stands.
    @Test func aStreamsEffectsSeeItsPictureUpright() throws {
        let folder = try ComposeCommandTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (manifest, _) = try Self.phoneCall(in: folder)
        let job = folder.appendingPathComponent("job.yaml").path
        try Data("streams:\n  p90:\n    mirror: true\n".utf8).write(to: URL(fileURLWithPath: job))
        let output = folder.appendingPathComponent("effects.mkv").path
        let run = try runFxreplay(["compose", manifest, "-o", output, "--size", "640x480", "--fps", "10", "--codec", "ffv1",
                                   "--progress", "none", "--job", job])
        try #require(run.status == 0, "\(run.stderr)")
        let picture = FxTestSupport.PixelRect.contain(Self.portrait, in: ComposeCommandTests.grid(3, 640, 480)[0])
        for (k, frame) in try GrayVideo.read(output).enumerated() {
            var flipped = frame
            for y in picture.y..<(picture.y + picture.height) {
                for x in picture.x..<(picture.x + picture.width) {
                    flipped.pixels[y * frame.width + x] = frame[2 * picture.x + picture.width - 1 - x, y]
                }
            }
            let code = FrameCode.read(flipped, picture: picture)
            #expect(code?.index == k && code?.tag == 9, "frame \(k): flipped back, read \(String(describing: code))")
            #expect(FrameCode.read(frame, picture: picture) == nil, "frame \(k): the tile is not mirrored")
        }
    }

    /// `focus` on the portrait participant: its picture (270 × 360) is centred in the 640 × 360 top
    /// tile; its name's plate starts half the text size in from the picture's left edge (not the
    /// cell's, 185 px further left) and ends above the picture's bottom.
    @Test func aNameSitsAtItsPicturesBottomLeftCorner() throws {
        let folder = try ComposeCommandTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (manifest, _) = try Self.phoneCall(in: folder)
        var frames: [[GrayFrame]] = []
        for names in [false, true] {
            let output = folder.appendingPathComponent("focus-\(names).mkv").path
            let run = try runFxreplay(["compose", manifest, "-o", output, "--size", "640x480", "--fps", "10", "--codec", "ffv1",
                                       "--progress", "none", "--layout", "focus", "--focus", "p90"] + (names ? ["--names"] : []))
            try #require(run.status == 0, "\(run.stderr)")
            frames.append(try GrayVideo.read(output))
        }
        // §9's contain of 180 × 240 in the 640 × 360 tile, and --names' text size (a sixteenth of its height).
        let picture = FxTestSupport.PixelRect.contain(Self.portrait, in: FxTestSupport.PixelRect(x: 0, y: 0, width: 640, height: 360))
        let size = 360 / 16, margin = size / 2
        var left = Int.max, right = 0, top = Int.max, bottom = 0
        for y in 0..<360 {
            for x in 0..<640 where frames[0][0][x, y] != frames[1][0][x, y] {
                (left, right, top, bottom) = (min(left, x), max(right, x), min(top, y), max(bottom, y))
            }
        }
        print("name plate of Ninety: x \(left)…\(right), y \(top)…\(bottom); picture \(picture)")
        #expect(left >= picture.x + margin - 1 && left <= picture.x + margin + 1, "plate starts at x = \(left); picture at \(picture.x)")
        #expect(bottom < picture.y + picture.height - margin + 1 && bottom >= picture.y + picture.height - margin - 2, "plate ends at y = \(bottom)")
        #expect(right < picture.x + picture.width && top > picture.y + picture.height - 3 * size, "plate \(left)…\(right) × \(top)…\(bottom)")
    }

    /// `pip` with the mirrored landscape participant large: the two portrait insets are portrait
    /// (96 × 128: the area of a fifth by a fifth of 640 × 480, at 3:4), right to left along the
    /// bottom with 10 px margins, each filled by its picture to the edges (its grey top band
    /// spans the inset's whole width; a background-coloured bar would not be grey).
    @Test func pipInsetsTakeTheirPicturesShape() throws {
        let folder = try ComposeCommandTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (manifest, _) = try Self.phoneCall(in: folder)
        let output = folder.appendingPathComponent("pip.mkv").path
        let run = try runFxreplay(["compose", manifest, "-o", output, "--size", "640x480", "--fps", "10", "--codec", "ffv1",
                                   "--progress", "none", "--layout", "pip", "--focus", "mir", "--background-color", "#404040"])
        try #require(run.status == 0, "\(run.stderr)")
        let frames = try GrayVideo.read(output)
        let insets = [(FxTestSupport.PixelRect(x: 640 - 10 - 96, y: 480 - 10 - 128, width: 96, height: 128), 9),
                      (FxTestSupport.PixelRect(x: 640 - 2 * (10 + 96), y: 480 - 10 - 128, width: 96, height: 128), 27)]
        for (k, frame) in frames.enumerated() {
            for (inset, tag) in insets {
                let code = FrameCode.read(frame, picture: inset)
                #expect(code?.index == k && code?.tag == tag, "frame \(k), inset \(inset): \(String(describing: code))")
                // Rows of the code's top grey band (its first quarter), every column of the inset.
                for y in [inset.y + 4, inset.y + inset.height / 4 - 4] {
                    let columns = (inset.x..<(inset.x + inset.width)).filter { abs(Int(frame[$0, y]) - 128) > 8 }
                    #expect(columns.isEmpty, "frame \(k), inset \(inset), row \(y): not the picture at columns \(columns)")
                }
            }
        }
    }

    /// A call whose participants join at 1 s: the contact sheet's first thumbnail is the first
    /// frame that shows them (output frame 10), and each thumbnail equals its frame whole, name
    /// included: the frame's label is in a strip below it.
    @Test func theContactSheetStartsWithSomeoneAndHidesNoName() throws {
        let folder = try ComposeCommandTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (manifest, _) = try Self.phoneCall(in: folder, start: 1.0)
        let output = folder.appendingPathComponent("sheet.mkv").path, sheet = folder.appendingPathComponent("sheet.png").path
        let run = try runFxreplay(["compose", manifest, "-o", output, "--size", "640x360", "--fps", "10", "--codec", "ffv1",
                                   "--progress", "none", "--names", "--preview", sheet])
        try #require(run.status == 0, "\(run.stderr)")
        // Frames and sheet read alike (the project's reader: the PNG's RGB comes back at the video's levels).
        var frames: [GrayFrame] = []
        let video = try VideoFrameReader(url: output)
        while let frame = try video.next() {
            let image = try video.image(of: frame)
            frames.append(GrayFrame(width: image.width, height: image.height,
                                    pixels: (0..<image.height).flatMap { Array(image.luma.row($0)) }))
        }
        #expect(frames.count == 20)
        let png = try VideoFrameReader(url: sheet)
        let picture = try png.image(of: try #require(try png.next()))
        // 3 × 2 thumbnails 320 × 180, 4 px apart, each over a label strip.
        let (cellWidth, cellHeight, gap) = (320, 180, ContactSheet.gap)
        let strip = (picture.height - 2 * cellHeight - 3 * gap) / 2
        #expect(picture.width == 3 * cellWidth + 4 * gap && strip >= 16 && strip <= 30, "sheet \(picture.width)x\(picture.height)")
        var shown: [Int] = []
        for cell in 0..<6 {
            let left = gap + (cell % 3) * (cellWidth + gap), top = gap + (cell / 3) * (cellHeight + strip + gap)
            let thumbnail = GrayFrame(width: cellWidth, height: cellHeight,
                                      pixels: (0..<cellHeight).flatMap { y in (0..<cellWidth).map { picture.luma[left + $0, top + y] } })
            // Mirror's picture (240 × 180 in the last grid cell, 200, 180 on the frame) tells the frame shown.
            let code = try #require(FrameCode.read(thumbnail, picture: FxTestSupport.PixelRect(x: 100, y: 90, width: 120, height: 90)),
                                    "thumbnail \(cell) shows no one")
            let k = 10 + code.index
            shown.append(k)
            // Where the frame label used to be, Mirror's name: the thumbnail is the frame there (halved).
            var sum = 0
            for y in 150..<180 {
                for x in 0..<160 {
                    var source = 0
                    for dy in 0..<2 { for dx in 0..<2 { source += Int(frames[k][2 * x + dx, 2 * y + dy]) } }
                    sum += abs(Int(thumbnail[x, y]) - source / 4)
                }
            }
            #expect(Double(sum) / Double(30 * 160) < 12, "thumbnail \(cell): the lower-left corner is not frame \(k)'s")
            // The label is drawn in the strip: its plate and text differ from the sheet's background there.
            let labelled = (0..<strip).contains { y in (0..<120).contains { x in abs(Int(picture.luma[left + x, top + cellHeight + y]) - 32) > 40 } }
            #expect(labelled, "thumbnail \(cell) has no label below it")
        }
        #expect(shown.first == 10 && shown.last! >= 18, "frames shown: \(shown)")
    }
}

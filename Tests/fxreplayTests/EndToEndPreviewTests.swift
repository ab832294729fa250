import Foundation
@testable import ReplayKitless
import Testing

@Suite struct EndToEndPreviewTests {
    /// `render --preview`: a 3×2 PNG grid of six rendered frames, the first and nearly the last,
    /// evenly spread; each cell (320 px wide, here the frame's own size) shows one output frame.
    @Test func previewShowsSixFramesSpreadOverTheRender() throws {
        let sample = try GeneratedSample.get()
        let dir = try makeScratchDirectory()
        let output = dir.appendingPathComponent("out.mkv").path, sheet = dir.appendingPathComponent("sheet.png").path
        let run = try runFxreplay(["render", sample.path("call.mp4"), "-o", output, "--codec", "ffv1", "--preview", sheet,
                                   "--poses-from-sei", "--annotations", sample.path("annotations.json"), "--progress", "none"])
        try #require(run.status == 0, "\(run.stderr)")

        var frames: [[UInt8]] = []
        let video = try VideoFrameReader(url: output)
        while let frame = try video.next() {
            let image = try video.image(of: frame)
            frames.append((0..<image.height).flatMap { Array(image.luma.row($0)) })
        }
        let png = try VideoFrameReader(url: sheet)
        let picture = try png.image(of: try #require(try png.next()))
        // Each thumbnail has its label in a strip below it, so the whole thumbnail is the frame.
        let (cellWidth, cellHeight, gap) = (320, 180, 4)
        let strip = (picture.height - 2 * cellHeight - 3 * gap) / 2
        #expect(picture.width == 3 * cellWidth + 4 * gap && strip >= 16 && strip <= 30, "sheet \(picture.width)x\(picture.height)")

        var shown: [Int] = []
        for cell in 0..<6 {
            let left = gap + (cell % 3) * (cellWidth + gap), top = gap + (cell / 3) * (cellHeight + strip + gap)
            /// Mean absolute luma difference to frame `index`, over the whole thumbnail.
            func difference(_ index: Int) -> Double {
                var sum = 0, count = 0
                for y in 0..<cellHeight {
                    for x in 0..<cellWidth {
                        sum += abs(Int(picture.luma[left + x, top + y]) - Int(frames[index][y * cellWidth + x]))
                        count += 1
                    }
                }
                return Double(sum) / Double(count)
            }
            let differences = frames.indices.map(difference)
            let best = try #require(differences.indices.min { differences[$0] < differences[$1] })
            #expect(differences[best] < 2, "cell \(cell) is no frame of the render (closest: frame \(best), \(differences[best]))")
            shown.append(best)
        }
        #expect(shown.first == 0 && shown.last! >= frames.count * 9 / 10, "frames shown: \(shown) of \(frames.count)")
        let step = Double(shown.last! - shown.first!) / 5
        for (a, b) in zip(shown, shown.dropFirst()) {
            #expect(Double(b - a) >= 0.75 * step && Double(b - a) <= 1.25 * step, "frames shown: \(shown)")
        }
    }

    @Test func previewFollowsOutputRules() throws {
        let sample = try GeneratedSample.get()
        let dir = try makeScratchDirectory()
        let output = dir.appendingPathComponent("out.mp4").path, sheet = dir.appendingPathComponent("sheet.png").path
        try Data("keep".utf8).write(to: URL(fileURLWithPath: sheet))
        let refused = try runFxreplay(["render", sample.path("call.mp4"), "-o", output, "--preview", sheet, "--progress", "none"])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output), "nothing is rendered when the preview cannot be written")
        #expect(try Data(contentsOf: URL(fileURLWithPath: sheet)) == Data("keep".utf8))
        let overInput = try runFxreplay(["render", sample.path("call.mp4"), "-o", output, "--preview", sample.path("call.mp4"),
                                         "--overwrite", "--progress", "none"])
        #expect(overInput.status == 2, "\(overInput.stderr)")
    }
}

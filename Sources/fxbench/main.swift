// fxbench: throughput of the per-frame compositing kernels alone, release build:
//
//     swift build -c release --product fxbench && .build/release/fxbench [WIDTHxHEIGHT] [FRAMES]
//
// Prints megapixels (luma samples) per second for the mask blend, the transparent-alpha path and
// the σ = 15 blur background, on random 8-bit 4:2:0 frames (1280×720 and 300 frames by default).
import Foundation
import ReplayKitless

let arguments = CommandLine.arguments.dropFirst()
let size = arguments.first.flatMap(PictureSize.init(parsing:)) ?? PictureSize(width: 1280, height: 720)
let frames = arguments.dropFirst().first.flatMap(Int.init) ?? 300

func randomFill(_ plane: Plane, seed: UInt64) {
    var state = seed
    for y in 0..<plane.height {
        let row = plane.row(y)
        for x in 0..<row.count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            row[x] = UInt8(truncatingIfNeeded: state >> 56)
        }
    }
}

let frame = PlanarBuffer(width: size.width, height: size.height, alpha: true)
let background = PlanarBuffer(width: size.width, height: size.height)
let mask = PlanarBuffer(width: size.width, height: size.height, subsampling: .yuv444)
for (index, plane) in [frame.image.luma, frame.image.cb, frame.image.cr, background.image.luma, background.image.cb,
                       background.image.cr, mask.image.luma].enumerated() {
    randomFill(plane, seed: UInt64(index + 1))
}

/// Runs `body` `frames` times and prints the rate in luma megapixels per second.
func measure(_ name: String, _ body: () -> Void) {
    body()  // warm-up: scratch memory allocated once
    let clock = ContinuousClock()
    let elapsed = clock.measure { for _ in 0..<frames { body() } }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    let megapixels = Double(size.width * size.height * frames) / 1e6
    let label = name.padding(toLength: 28, withPad: " ", startingAt: 0)
    print(label + String(format: "%9.1f MP/s %8.3f ms/frame", megapixels / seconds, seconds * 1000 / Double(frames)))
}

print("fxbench: \(size) 4:2:0, \(frames) frames per kernel")
let blender = MaskBlender()
measure("blend (mask, 4:2:0)") { blender.blend(frame.image, with: background.image, mask: mask.image.luma) }
measure("alpha (straight)") { blender.applyAlpha(mask.image.luma, to: frame.image, premultiplied: false) }
measure("alpha (premultiplied)") { blender.applyAlpha(mask.image.luma, to: frame.image, premultiplied: true) }
let blur = GaussianBlur()
measure("blur σ = 15 (background)") { blur.blur(frame.image, into: background.image, sigma: 15) }

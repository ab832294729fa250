import Foundation

/// The replacement background of the sample: a landscape (sky, sun, two hills, a field) in 16:10,
/// a quarter wider than the video, so that "cover" has to scale and crop it.
enum SampleBackground {
    /// Size for a video of `size`: 1.25 × its width, 16:10, even.
    static func size(for video: PictureSize) -> PictureSize {
        let width = (video.width * 5 / 4) & ~1
        return PictureSize(width: width, height: (width * 10 / 16) & ~1)
    }

    /// The picture at `size`.
    static func picture(_ size: PictureSize) -> RGBPicture {
        typealias RGB = (r: Double, g: Double, b: Double)
        let w = Double(size.width), h = Double(size.height)
        var picture = RGBPicture(width: size.width, height: size.height)
        /// `a` moved towards `b` by the coverage of a shape whose signed distance (pixels, negative inside) is `d`.
        func over(_ a: RGB, _ b: RGB, distance d: Double) -> RGB {
            let t = max(0, min(1, 0.5 - d))
            return (a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t)
        }
        let top: RGB = (120, 170, 222), horizon: RGB = (226, 236, 242)
        for y in 0..<size.height {
            let py = Double(y) + 0.5
            let sky = over(top, horizon, distance: 0.5 - py / (0.62 * h))
            for x in 0..<size.width {
                let px = Double(x) + 0.5
                let sun = ((px - 0.8 * w) * (px - 0.8 * w) + (py - 0.2 * h) * (py - 0.2 * h)).squareRoot() - 0.06 * h
                var color = over(sky, (255, 242, 204), distance: sun)
                color = over(color, (112, 152, 98), distance: h * (0.55 + 0.06 * sin(2 * .pi * 1.3 * px / w + 0.7)) - py)
                color = over(color, (78, 124, 70), distance: h * (0.68 + 0.05 * sin(2 * .pi * 2.1 * px / w + 2.0)) - py)
                color = over(color, (158, 138, 92), distance: 0.86 * h - py)
                picture[x, y] = (UInt8(color.r.rounded()), UInt8(color.g.rounded()), UInt8(color.b.rounded()))
            }
        }
        return picture
    }
}

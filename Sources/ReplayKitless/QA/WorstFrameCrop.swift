import Foundation

/// A worst-frame picture of `qa compare --report … --video …`: the region of the frame around one
/// annotation's placements, enlarged by whole pixels, with both tracks' markers and their ids, a
/// caption band (in the annotation's plot colour) and a legend band with the pixel scale.
///
/// The region (``region(around:width:height:)``): a square of side span + 32 px (at least 32),
/// span being the larger of |xA − xB| and |yA − yB|, centred on the middle of the placements and
/// moved inside the frame (narrower where the frame is); enlarged ×⌊320 / side⌋ (at least ×1). A
/// placement at continuous (x, y) (formats.md §2) is drawn at ((x − left)·zoom, (y − top)·zoom) of
/// the crop.
enum WorstFrameCrop {
    /// One marker: track 0 (A) or 1 (B), the annotation id, continuous pixel coordinates.
    struct Placement {
        var track: Int
        var id: String
        var x: Double
        var y: Double
    }

    struct Region: Equatable {
        var left: Int
        var top: Int
        var width: Int
        var height: Int
        var zoom: Int
    }

    /// Target size of the enlarged crop, pixels.
    static let targetSide = 320

    static func region(around points: [(x: Double, y: Double)], width: Int, height: Int) -> Region {
        let xs = points.map(\.x), ys = points.map(\.y)
        let minX = xs.min() ?? Double(width) / 2, maxX = xs.max() ?? Double(width) / 2
        let minY = ys.min() ?? Double(height) / 2, maxY = ys.max() ?? Double(height) / 2
        let span = max(maxX - minX, maxY - minY)
        let side = Int(clamping: span + 32, rounding: .up, to: 32...InputLimits.pictureSide)
        let cropWidth = min(side, width), cropHeight = min(side, height)
        func start(_ centre: Double, _ extent: Int, _ limit: Int) -> Int {
            Int(clamping: centre - Double(extent) / 2, rounding: .toNearestOrAwayFromZero, to: 0...max(0, limit - extent))
        }
        return Region(left: start((minX + maxX) / 2, cropWidth, width), top: start((minY + maxY) / 2, cropHeight, height),
                      width: cropWidth, height: cropHeight, zoom: max(1, targetSide / max(cropWidth, cropHeight)))
    }

    /// The picture: `frame` (the whole upright frame in R'G'B') cropped around `focus`'s placements
    /// among `placements`, with `caption` over it and `legend` (A's and B's names) under it.
    static func picture(frame: RGBPicture, placements: [Placement], focus: String, caption: String, accent: RGBAColor,
                        legend: [String]) -> RGBPicture {
        let points = placements.filter { $0.id == focus }.map { (x: $0.x, y: $0.y) }
        let region = region(around: points, width: frame.width, height: frame.height)
        var crop = frame.zoomedCrop(x: region.left, y: region.top, width: region.width, height: region.height, zoom: region.zoom)
        let text = ReportPictureText(size: 12)
        // Markers first, then every id beside its marker (A's above, B's below: close pairs stay readable).
        let zoomed = placements.map { (placement: $0, x: ($0.x - Double(region.left)) * Double(region.zoom),
                                       y: ($0.y - Double(region.top)) * Double(region.zoom)) }
        for item in zoomed { marker(item.placement.track).draw(at: item.x, item.y, in: &crop) }
        if let text {
            for item in zoomed {
                let label = "\(item.placement.track == 0 ? "A" : "B") \(item.placement.id)"
                let top = item.placement.track == 0 ? Int(item.y) - 12 - text.lineHeight : Int(item.y) + 12
                // Right of the marker, or left of it where the crop ends first.
                let right = Int(item.x) + 12, width = text.width(label)
                let x = right + width + 2 <= crop.width ? right : max(2, Int(item.x) - 12 - width)
                plate(label, x: x, top: top, color: MarkerStyle.trackColor(item.placement.track), text: text, in: &crop)
            }
        }

        let band = (text?.lineHeight ?? 12) + 8
        // As wide as the crop, or as its caption (up to twice the crop's target size).
        let captionWidth = (text?.width(caption) ?? 0) + band + 8
        var canvas = RGBPicture(width: max(crop.width, 240, min(2 * targetSide, captionWidth)), height: crop.height + 3 * band)
        canvas.fill(x: 0, y: 0, width: canvas.width, height: canvas.height, color: .reportBand)
        canvas.paste(crop, x: (canvas.width - crop.width) / 2, y: band)
        guard let text else { return canvas }
        // Caption: a swatch in the annotation's plot colour, then the text.
        canvas.fill(x: 4, y: 4, width: band - 8, height: band - 8, color: accent)
        text.draw(caption, x: band, top: 4, color: .reportWhite, maxWidth: canvas.width - band - 4, in: &canvas)
        // Legend: each track's marker and name.
        var x = 4
        let legendTop = band + crop.height + 4
        for (track, name) in legend.enumerated() {
            var swatch = RGBPicture(width: band - 4, height: band - 4)
            swatch.fill(x: 0, y: 0, width: swatch.width, height: swatch.height, color: .reportBand)
            MarkerStyle(color: MarkerStyle.trackColor(track), radius: Double(band) / 2 - 4, thickness: 2)
                .draw(at: Double(swatch.width) / 2, Double(swatch.height) / 2, in: &swatch)
            canvas.paste(swatch, x: x, y: legendTop - 2)
            x += swatch.width + 3
            x += text.draw(name, x: x, top: legendTop, color: .reportWhite, maxWidth: canvas.width - x - 4, in: &canvas) + 12
            if track == 0 && x > canvas.width / 2 { break }
        }
        // Pixel scale: a bar as long as `n` source pixels, n from 1, 2, 5, 10, 20, 50, …, ≤ 100 px drawn.
        let scaleTop = band * 2 + crop.height + 4
        let pixels = scaleStep(zoom: region.zoom)
        canvas.fill(x: 4, y: scaleTop + text.lineHeight / 2 - 2, width: pixels * region.zoom, height: 4, color: .reportWhite)
        for end in [4, 4 + pixels * region.zoom - 2] {
            canvas.fill(x: end, y: scaleTop, width: 2, height: text.lineHeight, color: .reportWhite)
        }
        text.draw("\(pixels) px" + (region.zoom > 1 ? " (zoom ×\(region.zoom): a block is a pixel)" : ""),
                  x: 12 + pixels * region.zoom, top: scaleTop, color: .reportWhite, maxWidth: canvas.width, in: &canvas)
        return canvas
    }

    /// The length of the scale bar in source pixels: the largest of 1, 2, 5, 10, 20, 50, … that is
    /// drawn at most 100 pixels long.
    static func scaleStep(zoom: Int) -> Int {
        var best = 1
        for magnitude in [1, 10, 100, 1000] {
            for step in [1, 2, 5] where step * magnitude * zoom <= 100 { best = max(best, step * magnitude) }
        }
        return best
    }

    /// A's and B's markers in the pictures: 9 px radius, 2 px lines, whatever the zoom.
    static func marker(_ track: Int) -> MarkerStyle {
        MarkerStyle(color: MarkerStyle.trackColor(track), radius: 9, thickness: 2)
    }

    /// `label` in `color` on a dark plate with its top-left corner at (`x`, `top`).
    private static func plate(_ label: String, x: Int, top: Int, color: RGBAColor, text: ReportPictureText, in picture: inout RGBPicture) {
        picture.fill(x: x - 2, y: top - 1, width: text.width(label) + 4, height: text.lineHeight + 2, color: .reportBand)
        text.draw(label, x: x, top: top, color: color, in: &picture)
    }
}

/// Placement markers drawn straight into a Y'CbCr picture: a ring with a cross through its centre,
/// in a solid colour over a dark outline, so a placement shows on any background. No antialiasing:
/// these pictures are for reviewing, not for delivery.
package struct MarkerStyle: Sendable, Equatable {
    package var color: RGBAColor
    /// Ring radius in pixels (to the middle of the line); the cross arms reach the ring.
    package var radius: Double
    /// Line width in pixels.
    package var thickness: Double

    package init(color: RGBAColor, radius: Double, thickness: Double) {
        self.color = color
        self.radius = radius
        self.thickness = thickness
    }

    /// Distinct marker colours, one per track, with their names: A red, B cyan, then yellow, green, purple.
    package static let trackColors: [(name: String, color: RGBAColor)] = [
        ("red", RGBAColor(red: 0xFF, green: 0x3B, blue: 0x30)), ("cyan", RGBAColor(red: 0x00, green: 0xC7, blue: 0xFF)),
        ("yellow", RGBAColor(red: 0xFF, green: 0xCC, blue: 0x00)), ("green", RGBAColor(red: 0x34, green: 0xC7, blue: 0x59)),
        ("purple", RGBAColor(red: 0xAF, green: 0x52, blue: 0xDE)),
    ]

    /// The colour of track `index` (repeating after five).
    package static func trackColor(_ index: Int) -> RGBAColor { trackColors[index % trackColors.count].color }

    /// A marker sized for a picture `height` pixels tall: radius 1/36 of the height (at least 6 px),
    /// line 1/5 of the radius (at least 2 px).
    package static func sized(for height: Int, color: RGBAColor) -> MarkerStyle {
        let radius = max(6, Double(height) / 36)
        return MarkerStyle(color: color, radius: radius, thickness: max(2, radius / 5))
    }

    /// Draws the marker centred on continuous pixel coordinates (`x`, `y`) (formats.md §2), clipped to
    /// the picture; the colour goes through the picture's own colour matrix and range.
    package func draw(at x: Double, _ y: Double, in image: YUVImage) {
        // Off the picture (projections near the camera plane can be huge): nothing to draw.
        let extent = radius + thickness + 2
        guard x > -extent, y > -extent, x < Double(image.width) + extent, y < Double(image.height) + extent else { return }
        let outline = image.colorSpace.yuv(red: 0, green: 0, blue: 0)
        let fill = image.colorSpace.yuv(red: color.red, green: color.green, blue: color.blue)
        paint(x, y, halfWidth: thickness / 2 + 1, reach: radius + 1, colour: outline, in: image)
        paint(x, y, halfWidth: thickness / 2, reach: radius, colour: fill, in: image)
    }

    /// Sets every sample whose centre lies on the ring or the cross (lines `2·halfWidth` wide, cross
    /// arms `reach` long) in each plane.
    private func paint(_ x: Double, _ y: Double, halfWidth: Double, reach: Double, colour: YUVColor, in image: YUVImage) {
        let sx = Double(1 << image.subsampling.shiftX), sy = Double(1 << image.subsampling.shiftY)
        paint(image.luma, colour.y, scaleX: 1, scaleY: 1, x, y, halfWidth: halfWidth, reach: reach)
        paint(image.cb, colour.cb, scaleX: sx, scaleY: sy, x, y, halfWidth: halfWidth, reach: reach)
        paint(image.cr, colour.cr, scaleX: sx, scaleY: sy, x, y, halfWidth: halfWidth, reach: reach)
    }

    /// One plane whose samples each cover `scaleX × scaleY` luma samples. A chroma sample's lines are
    /// widened by half its extra extent, so chroma lines are as thick as the luma lines they colour.
    private func paint(_ plane: Plane, _ value: UInt8, scaleX: Double, scaleY: Double, _ x: Double, _ y: Double,
                       halfWidth: Double, reach: Double) {
        let half = halfWidth + (max(scaleX, scaleY) - 1) / 2, outer = max(radius, reach) + half
        // Clamped before converting: a mark far off the picture (or at NaN) paints nothing.
        let left = Int(clamping: (x - outer) / scaleX, rounding: .down, to: 0...plane.width)
        let right = Int(clamping: (x + outer) / scaleX, rounding: .up, to: -1...plane.width - 1)
        let top = Int(clamping: (y - outer) / scaleY, rounding: .down, to: 0...plane.height)
        let bottom = Int(clamping: (y + outer) / scaleY, rounding: .up, to: -1...plane.height - 1)
        guard left <= right, top <= bottom else { return }
        for row in top...bottom {
            let dy = (Double(row) + 0.5) * scaleY - y
            let line = plane.row(row)
            for column in left...right {
                let dx = (Double(column) + 0.5) * scaleX - x
                if covers(dx: dx, dy: dy, half: half, reach: reach) { line[column] = value }
            }
        }
    }

    /// Whether a sample centre (`dx`, `dy`) from the marker's centre lies on the ring or the cross.
    func covers(dx: Double, dy: Double, half: Double, reach: Double) -> Bool {
        abs((dx * dx + dy * dy).squareRoot() - radius) <= half
            || (abs(dx) <= half && abs(dy) <= reach) || (abs(dy) <= half && abs(dx) <= reach)
    }

    /// Draws the marker into an R'G'B' picture (report pictures drawn after scaling): the exact
    /// colour over a black outline, like ``draw(at:_:in:)``.
    package func draw(at x: Double, _ y: Double, in picture: inout RGBPicture) {
        let black = RGBAColor(red: 0, green: 0, blue: 0)
        for (half, reach, colour) in [(thickness / 2 + 1, radius + 1, black), (thickness / 2, radius, color)] {
            let outer = max(radius, reach) + half
            let left = Int(clamping: x - outer, rounding: .down, to: 0...picture.width)
            let right = Int(clamping: x + outer, rounding: .up, to: -1...picture.width - 1)
            let top = Int(clamping: y - outer, rounding: .down, to: 0...picture.height)
            let bottom = Int(clamping: y + outer, rounding: .up, to: -1...picture.height - 1)
            guard left <= right, top <= bottom else { continue }
            for row in top...bottom {
                let dy = Double(row) + 0.5 - y
                for column in left...right where covers(dx: Double(column) + 0.5 - x, dy: dy, half: half, reach: reach) {
                    picture[column, row] = (colour.red, colour.green, colour.blue)
                }
            }
        }
    }
}

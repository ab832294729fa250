/// How a stream's stored pictures are shown: turned clockwise by whole quarter turns, then
/// mirrored horizontally (the container's display matrix, as ``DisplayMatrix`` reads it, and
/// `--mirror`). `render` turns its frames upright by it, `compose` each tile's picture, and a
/// background or mask picture its own: one value answers every question about it, so the
/// sizes, rectangles and pixels they turn always agree.
package struct PictureOrientation: Sendable, Hashable {
    /// Clockwise quarter turns, 0…3.
    package let quarterTurns: Int
    /// Mirrored horizontally, after the turn.
    package let mirrored: Bool

    package init(quarterTurns: Int, mirrored: Bool) {
        self.quarterTurns = ((quarterTurns % 4) + 4) % 4
        self.mirrored = mirrored
    }

    /// A display rotation in degrees clockwise (a multiple of 90; others are refused where files are
    /// opened, ``StreamInfo/requireQuarterTurns(of:)``), and mirroring.
    package init(rotation: Int, mirrored: Bool) {
        self.init(quarterTurns: rotation / 90, mirrored: mirrored)
    }

    /// Shown as stored.
    package static let upright = PictureOrientation(quarterTurns: 0, mirrored: false)

    /// Whether pictures are shown as stored (nothing to turn).
    package var isUpright: Bool { quarterTurns == 0 && !mirrored }

    /// Whether width and height trade places.
    package var swapsSides: Bool { quarterTurns % 2 == 1 }

    /// The orientation that undoes this one: turning then mirroring is its own inverse; a plain
    /// turn is undone by the opposite turn.
    package var inverse: PictureOrientation {
        mirrored ? self : PictureOrientation(quarterTurns: 4 - quarterTurns, mirrored: false)
    }

    /// This orientation, mirrored once more when `mirror` (`--mirror` on a mirrored stream shows it unmirrored).
    package func mirrored(_ mirror: Bool) -> PictureOrientation {
        PictureOrientation(quarterTurns: quarterTurns, mirrored: mirrored != mirror)
    }

    /// The size a `stored` picture is shown at (and, turning back, the stored size of a shown one).
    package func turned(_ stored: PictureSize) -> PictureSize {
        swapsSides ? PictureSize(width: stored.height, height: stored.width) : stored
    }

    /// The rectangle of a `stored`-sized picture that shows as `rect` of the shown picture: its
    /// corners (on pixel edges) walked back through the mirror and the turns.
    package func storedRect(of rect: PixelRect, stored: PictureSize) -> PixelRect {
        var size = turned(stored)
        var corners = [(rect.x, rect.y), (rect.x + rect.width, rect.y + rect.height)]
        if mirrored { corners = corners.map { (size.width - $0.0, $0.1) } }
        for _ in 0..<quarterTurns {
            // A clockwise turn takes (x, y) of a w × h picture to (h − y, x); this is its inverse.
            corners = corners.map { ($0.1, size.width - $0.0) }
            size = PictureSize(width: size.height, height: size.width)
        }
        let xs = corners.map(\.0), ys = corners.map(\.1)
        return PixelRect(x: min(xs[0], xs[1]), y: min(ys[0], ys[1]), width: abs(xs[1] - xs[0]), height: abs(ys[1] - ys[0]))
    }

    /// Copies the stored picture `source` into `destination` (of the ``turned(_:)`` size) as shown.
    package func show(_ source: YUVImage, into destination: YUVImage) {
        reorient(source, into: destination, quarterTurns: quarterTurns, mirror: mirrored)
    }

    /// One plane of ``show(_:into:)``.
    package func show(_ source: Plane, into destination: Plane) {
        reorient(source, into: destination, quarterTurns: quarterTurns, mirror: mirrored)
    }
}

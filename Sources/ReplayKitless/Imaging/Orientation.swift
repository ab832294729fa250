/// Copies `source` into `destination` turned clockwise by `quarterTurns` quarter turns, after
/// mirroring it horizontally when `mirror` is set. Destination planes must already have the
/// turned size (width and height swapped for odd turns).
public func reorient(_ source: YUVImage, into destination: YUVImage, quarterTurns: Int, mirror: Bool) {
    reorient(source.luma, into: destination.luma, quarterTurns: quarterTurns, mirror: mirror)
    reorient(source.cb, into: destination.cb, quarterTurns: quarterTurns, mirror: mirror)
    reorient(source.cr, into: destination.cr, quarterTurns: quarterTurns, mirror: mirror)
    if let sourceAlpha = source.alpha, let destinationAlpha = destination.alpha {
        reorient(sourceAlpha, into: destinationAlpha, quarterTurns: quarterTurns, mirror: mirror)
    }
}

/// One plane of ``reorient(_:into:quarterTurns:mirror:)``.
public func reorient(_ source: Plane, into destination: Plane, quarterTurns: Int, mirror: Bool) {
    let turns = ((quarterTurns % 4) + 4) % 4
    let sw = source.width, sh = source.height
    let width = turns % 2 == 0 ? sw : sh
    let height = turns % 2 == 0 ? sh : sw
    precondition(destination.width == width && destination.height == height, "destination has the wrong size")
    // For each destination pixel (x, y), the source pixel it shows.
    for y in 0..<height {
        let out = destination.base + y * destination.stride
        switch turns {
        case 0:
            let row = source.base + y * source.stride
            if mirror {
                for x in 0..<width { out[x] = row[sw - 1 - x] }
            } else {
                out.update(from: row, count: width)
            }
        case 2:
            let row = source.base + (sh - 1 - y) * source.stride
            if mirror {
                for x in 0..<width { out[x] = row[x] }
            } else {
                for x in 0..<width { out[x] = row[sw - 1 - x] }
            }
        case 1:
            // Clockwise: destination (x, y) shows source (y, sh − 1 − x); mirrored, source column sw − 1 − y.
            let column = mirror ? sw - 1 - y : y
            var pointer = source.base + (sh - 1) * source.stride + column
            for x in 0..<width {
                out[x] = pointer.pointee
                pointer -= source.stride
            }
        default:
            // Counter-clockwise: destination (x, y) shows source (sw − 1 − y, x).
            let column = mirror ? y : sw - 1 - y
            var pointer = source.base + column
            for x in 0..<width {
                out[x] = pointer.pointee
                pointer += source.stride
            }
        }
    }
}

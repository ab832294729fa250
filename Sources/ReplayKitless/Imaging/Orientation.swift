/// Copies `source` into `destination` turned clockwise by `quarterTurns` quarter turns, then
/// mirrored horizontally when `mirror` is set. Destination planes must already have the
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
    // Walk the source pixels that destination row y shows, left to right before mirroring:
    // `start` is the first one and `step` the distance to the next.
    for y in 0..<height {
        let start: UnsafeMutablePointer<UInt8>
        let step: Int
        switch turns {
        case 0: (start, step) = (source.base + y * source.stride, 1)
        case 1: (start, step) = (source.base + (sh - 1) * source.stride + y, -source.stride)
        case 2: (start, step) = (source.base + (sh - 1 - y) * source.stride + sw - 1, -1)
        default: (start, step) = (source.base + sw - 1 - y, source.stride)
        }
        let out = destination.base + y * destination.stride
        if step == 1 && !mirror {
            out.update(from: start, count: width)
        } else if mirror {
            var pointer = start
            for x in stride(from: width - 1, through: 0, by: -1) {
                out[x] = pointer.pointee
                pointer += step
            }
        } else {
            var pointer = start
            for x in 0..<width {
                out[x] = pointer.pointee
                pointer += step
            }
        }
    }
}

/// Copies `source` into `destination` turned clockwise by `quarterTurns` quarter turns, then
/// mirrored horizontally when `mirror` is set. Destination planes must already have the
/// turned size (width and height swapped for odd turns).
package func reorient(_ source: YUVImage, into destination: YUVImage, quarterTurns: Int, mirror: Bool) {
    reorient(source.luma, into: destination.luma, quarterTurns: quarterTurns, mirror: mirror)
    reorient(source.cb, into: destination.cb, quarterTurns: quarterTurns, mirror: mirror)
    reorient(source.cr, into: destination.cr, quarterTurns: quarterTurns, mirror: mirror)
    if let sourceAlpha = source.alpha, let destinationAlpha = destination.alpha {
        reorient(sourceAlpha, into: destinationAlpha, quarterTurns: quarterTurns, mirror: mirror)
    }
}

/// One plane of ``reorient(_:into:quarterTurns:mirror:)``, of `bytesPerPixel`-byte pixels (widths
/// count pixels): 8-bit samples, 16-bit ones, or whole packed pixels such as RGB's 3 or 4 bytes.
package func reorient(_ source: Plane, into destination: Plane, quarterTurns: Int, mirror: Bool, bytesPerPixel: Int = 1) {
    switch bytesPerPixel {
    case 1: reorient(source, into: destination, quarterTurns: quarterTurns, mirror: mirror, as: UInt8.self)
    case 2: reorient(source, into: destination, quarterTurns: quarterTurns, mirror: mirror, as: UInt16.self)
    case 3: reorient(source, into: destination, quarterTurns: quarterTurns, mirror: mirror, as: (UInt8, UInt8, UInt8).self)
    case 4: reorient(source, into: destination, quarterTurns: quarterTurns, mirror: mirror, as: UInt32.self)
    case 6: reorient(source, into: destination, quarterTurns: quarterTurns, mirror: mirror, as: (UInt16, UInt16, UInt16).self)
    case 8: reorient(source, into: destination, quarterTurns: quarterTurns, mirror: mirror, as: UInt64.self)
    default: preconditionFailure("no \(bytesPerPixel)-byte pixels")
    }
}

/// ``reorient(_:into:quarterTurns:mirror:bytesPerPixel:)`` for pixels of type `Pixel` (loaded
/// unaligned: packed pixels need not sit on their size's boundary).
private func reorient<Pixel>(_ source: Plane, into destination: Plane, quarterTurns: Int, mirror: Bool, as _: Pixel.Type) {
    let size = MemoryLayout<Pixel>.size
    let turns = ((quarterTurns % 4) + 4) % 4
    let sw = source.width, sh = source.height
    let width = turns % 2 == 0 ? sw : sh
    let height = turns % 2 == 0 ? sh : sw
    precondition(destination.width == width && destination.height == height, "destination has the wrong size")
    let base = UnsafeRawPointer(source.base)
    // Walk the source pixels that destination row y shows, left to right before mirroring:
    // `start` is the first one and `step` the distance to the next, in bytes.
    for y in 0..<height {
        let start: UnsafeRawPointer
        let step: Int
        switch turns {
        case 0: (start, step) = (base + y * source.stride, size)
        case 1: (start, step) = (base + (sh - 1) * source.stride + y * size, -source.stride)
        case 2: (start, step) = (base + (sh - 1 - y) * source.stride + (sw - 1) * size, -size)
        default: (start, step) = (base + (sw - 1 - y) * size, source.stride)
        }
        let out = UnsafeMutableRawPointer(destination.base + y * destination.stride)
        if step == size && !mirror {
            out.copyMemory(from: start, byteCount: width * size)
            continue
        }
        var pointer = start
        for x in 0..<width {
            out.storeBytes(of: pointer.loadUnaligned(as: Pixel.self), toByteOffset: (mirror ? width - 1 - x : x) * size, as: Pixel.self)
            pointer += step
        }
    }
}

import Testing
@testable import ReplayKitless

@Suite struct OrientationTests {
    /// A 3×2 plane with samples 1…6 row by row:
    ///     1 2 3
    ///     4 5 6
    func source() -> PlanarBuffer {
        let buffer = PlanarBuffer(width: 3, height: 2, subsampling: .yuv444)
        for (i, v) in [1, 2, 3, 4, 5, 6].enumerated() { buffer.image.luma[i % 3, i / 3] = UInt8(v) }
        return buffer
    }

    func rows(_ plane: Plane) -> [[UInt8]] {
        (0..<plane.height).map { y in (0..<plane.width).map { plane[$0, y] } }
    }

    @Test(arguments: [
        (0, false, [[1, 2, 3], [4, 5, 6]]),
        (1, false, [[4, 1], [5, 2], [6, 3]]),          // clockwise
        (2, false, [[6, 5, 4], [3, 2, 1]]),
        (3, false, [[3, 6], [2, 5], [1, 4]]),          // counter-clockwise
        (0, true, [[3, 2, 1], [6, 5, 4]]),
        (1, true, [[1, 4], [2, 5], [3, 6]]),           // clockwise, then mirrored
    ] as [(Int, Bool, [[UInt8]])])
    func turnsAndMirrors(turns: Int, mirror: Bool, expected: [[UInt8]]) {
        let input = source()
        let odd = turns % 2 == 1
        let output = PlanarBuffer(width: odd ? 2 : 3, height: odd ? 3 : 2, subsampling: .yuv444)
        reorient(input.image.luma, into: output.image.luma, quarterTurns: turns, mirror: mirror)
        #expect(rows(output.image.luma) == expected)
    }

    /// ``PictureOrientation/storedRect(of:stored:)`` finds, for each pixel of the shown picture,
    /// the stored pixel that shows there (the same hand-written pictures as above), and the shown size.
    @Test(arguments: [
        (0, false, [[1, 2, 3], [4, 5, 6]]),
        (1, false, [[4, 1], [5, 2], [6, 3]]),
        (2, false, [[6, 5, 4], [3, 2, 1]]),
        (3, false, [[3, 6], [2, 5], [1, 4]]),
        (0, true, [[3, 2, 1], [6, 5, 4]]),
        (1, true, [[1, 4], [2, 5], [3, 6]]),
    ] as [(Int, Bool, [[Int]])])
    func shownPixelsComeFromTheirStoredPixels(turns: Int, mirror: Bool, shown: [[Int]]) {
        let orientation = PictureOrientation(rotation: 90 * turns, mirrored: mirror)
        let stored = PictureSize(width: 3, height: 2)
        #expect(orientation.turned(stored) == PictureSize(width: shown[0].count, height: shown.count))
        for (y, row) in shown.enumerated() {
            for (x, value) in row.enumerated() {
                #expect(orientation.storedRect(of: PixelRect(x: x, y: y, width: 1, height: 1), stored: stored)
                        == PixelRect(x: (value - 1) % 3, y: (value - 1) / 3, width: 1, height: 1))
            }
        }
        // Undone by its inverse.
        #expect(orientation.inverse.storedRect(of: orientation.storedRect(of: PixelRect(x: 0, y: 0, width: 1, height: 2), stored: stored),
                                               stored: orientation.turned(stored)) == PixelRect(x: 0, y: 0, width: 1, height: 2))
    }
}

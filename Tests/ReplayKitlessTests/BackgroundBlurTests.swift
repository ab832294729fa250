import Foundation
import Testing
@testable import ReplayKitless

/// The blur background near the frame's edges: clamp-to-edge once, as for one Gaussian.
@Suite struct BackgroundBlurTests {
    @Test(arguments: [1.5, 3.0, 8.0, 15.0, 40.0])
    func matchesAClampedGaussianUpToTheEdges(sigma: Double) {
        let width = 64, height = 48
        let squares: [UInt8] = (0..<(width * height)).map { i in ((i % width) / 16 + (i / width) / 16) % 2 == 0 ? 200 : 40 }
        let plane = TestPlane(width: width, height: height, values: squares)
        GaussianBlur().blur(plane.plane, into: plane.plane, sigmaX: sigma, sigmaY: sigma)
        let reference = BlurTests.referenceBlur(squares, width: width, height: height, sigma: sigma)
        let errors = zip(plane.values, reference).map { abs(Double($0) - $1) }
        // Every sample, the outermost rows and columns included.
        #expect(errors.max()! <= 3, "σ \(sigma): max \(errors.max()!)")
        #expect(errors.reduce(0, +) / Double(errors.count) <= 1, "σ \(sigma): mean \(errors.reduce(0, +) / Double(errors.count))")
        #expect(plane.paddingIntact)
    }

    @Test func aSinglePassCannotReadWhatItWrites() {
        // Only a column blur, in place: the one column pass must read an untouched copy.
        let values: [UInt8] = (0..<(8 * 40)).map { i in (i / 8) % 10 < 5 ? 220 : 30 }
        let inPlace = TestPlane(width: 8, height: 40, values: values)
        GaussianBlur().blur(inPlace.plane, into: inPlace.plane, sigmaX: 0, sigmaY: 2)
        let copy = TestPlane(width: 8, height: 40, values: values), separate = TestPlane(width: 8, height: 40, fill: 0)
        GaussianBlur().blur(copy.plane, into: separate.plane, sigmaX: 0, sigmaY: 2)
        #expect(inPlace.values == separate.values && copy.values == values)
        let reference = BlurTests.referenceBlur(Array(values.enumerated().filter { $0.offset % 8 == 0 }.map(\.element)), width: 1, height: 40, sigma: 2)
        #expect(zip(inPlace.rows.map { $0[0] }, reference).allSatisfy { abs(Double($0) - $1) <= 1 })
    }
}

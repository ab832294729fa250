import Testing
@testable import ReplayKitless

/// `fxreplay compare` measures PSNR from the SSIM block sums: the figures must be those of the plain
/// per-sample PSNR, whatever part of the picture lies outside whole 4×4 blocks.
@Suite struct QAQualityTests {
    @Test(arguments: [(37, 29, ChromaSubsampling.yuv420), (64, 48, .yuv420), (41, 8, .yuv444), (50, 18, .yuv422), (1283, 722, .yuv420)])
    func fusedPSNRMatchesThePlainOne(width: Int, height: Int, subsampling: ChromaSubsampling) throws {
        var random = FixtureRandom(seed: UInt64(width * 1000 + height))
        let a = makePicture(width: width, height: height, subsampling: subsampling) { _, _, _ in random.next() }
        let b = makePicture(width: width, height: height, subsampling: subsampling) { plane, x, y in
            // Mostly close to A, with a few large differences everywhere, the edges included.
            let base = Int(a.image.luma[0, 0])
            return UInt8(clamping: (plane == 0 ? Int(a.image.luma[x, y]) : base) + Int(random.next() % 9) - 4 + (x % 13 == 0 ? 90 : 0))
        }
        let meter = SSIMMeter()
        let (psnr, ssim) = try meter.measureBoth(a.image, b.image)
        #expect(psnr == (try PSNR.measure(a.image, b.image)))
        #expect(ssim == (try SSIMMeter().measure(a.image, b.image)))
        // The scratch memory is reused: a second, different pair gives its own figures.
        let (again, _) = try meter.measureBoth(b.image, b.image)
        #expect(again.mseAverage == 0)
    }
}

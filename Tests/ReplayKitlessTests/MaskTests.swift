import Foundation
import Testing
@testable import ReplayKitless

@Suite struct MaskShapingTests {
    @Test func invertAndThresholdAreExact() {
        let mask = TestPlane(width: 5, height: 2, values: [0, 1, 127, 128, 129, 200, 254, 255, 64, 100])
        let shaper = MaskShaper()
        shaper.apply(.invert, to: mask.plane)
        #expect(mask.values == [255, 254, 128, 127, 126, 55, 1, 0, 191, 155])
        shaper.apply(.threshold(127), to: mask.plane)
        #expect(mask.values == [255, 255, 255, 255, 0, 0, 0, 0, 255, 255])
        #expect(mask.paddingIntact)
    }

    @Test func thresholdKeepsValuesAtTheLevel() {
        let mask = TestPlane(width: 4, height: 1, values: [99, 100, 101, 0])
        MaskShaper().apply(.threshold(100), to: mask.plane)
        #expect(mask.values == [0, 255, 255, 0])
    }

    /// A `width × height` mask, `background` everywhere except `value` at the listed pixels.
    static func dots(width: Int, height: Int, at points: [(Int, Int)], value: UInt8 = 255,
                     background: UInt8 = 0) -> TestPlane {
        let plane = TestPlane(width: width, height: height, fill: background)
        for (x, y) in points { plane.plane[x, y] = value }
        return plane
    }

    /// The samples inside the square of side 2·radius + 1 around (cx, cy), by coordinates.
    static func insideSquare(width: Int, height: Int, around points: [(Int, Int)], radius: Int) -> [Bool] {
        (0..<(width * height)).map { index in
            let x = index % width, y = index / width
            return points.contains { abs($0.0 - x) <= radius && abs($0.1 - y) <= radius }
        }
    }

    @Test func expandingADotGivesASquare() {
        let mask = Self.dots(width: 11, height: 9, at: [(5, 4)])
        MaskShaper().apply(.expand(pixels: 2), to: mask.plane)
        // Columns 3…7, rows 2…6: a 5×5 square.
        let expected = Self.insideSquare(width: 11, height: 9, around: [(5, 4)], radius: 2).map { $0 ? UInt8(255) : 0 }
        #expect(mask.values == expected)
        #expect(mask.values.filter { $0 == 255 }.count == 25)
        #expect(mask.paddingIntact)
    }

    @Test func expandingAtTheCornerIsCutByTheFrame() {
        let mask = Self.dots(width: 6, height: 5, at: [(0, 0)])
        MaskShaper().apply(.expand(pixels: 1), to: mask.plane)
        #expect(mask.rows == [
            [255, 255, 0, 0, 0, 0],
            [255, 255, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 0],
        ])
    }

    @Test func shrinkingAroundAHoleGivesASquareHole() {
        let mask = Self.dots(width: 12, height: 10, at: [(4, 6)], value: 0, background: 255)
        MaskShaper().apply(.shrink(pixels: 3), to: mask.plane)
        let expected = Self.insideSquare(width: 12, height: 10, around: [(4, 6)], radius: 3).map { $0 ? UInt8(0) : 255 }
        #expect(mask.values == expected)
        #expect(mask.values.filter { $0 == 0 }.count == 7 * 7)
    }

    @Test func shrinkingTreatsBeyondTheFrameAsForeground() {
        let mask = TestPlane(width: 7, height: 6, fill: 255)
        MaskShaper().apply(.shrink(pixels: 2), to: mask.plane)
        #expect(Set(mask.values) == [255])
    }

    @Test(arguments: [1, 2, 3, 5, 8, 40])
    func morphologyMatchesBruteForceOnNoise(radius: Int) {
        let width = 23, height = 17
        var random = SplitMix(seed: UInt64(radius))
        let noise = random.bytes(width * height)
        func bruteForce(_ pick: ([UInt8]) -> UInt8) -> [UInt8] {
            (0..<(width * height)).map { index in
                let x = index % width, y = index / width
                var window: [UInt8] = []
                for sy in max(0, y - radius)...min(height - 1, y + radius) {
                    for sx in max(0, x - radius)...min(width - 1, x + radius) { window.append(noise[sy * width + sx]) }
                }
                return pick(window)
            }
        }
        let expanded = TestPlane(width: width, height: height, values: noise)
        let shrunk = TestPlane(width: width, height: height, values: noise)
        let shaper = MaskShaper()
        shaper.apply(.expand(pixels: radius), to: expanded.plane)
        shaper.apply(.shrink(pixels: radius), to: shrunk.plane)
        #expect(expanded.values == bruteForce { $0.max()! })
        #expect(shrunk.values == bruteForce { $0.min()! })
        #expect(expanded.paddingIntact && shrunk.paddingIntact)
    }

    @Test func nonPositiveSizesChangeNothing() {
        var random = SplitMix(seed: 21)
        let noise = random.bytes(8 * 6)
        let mask = TestPlane(width: 8, height: 6, values: noise)
        MaskShaper().apply([.expand(pixels: 0), .shrink(pixels: -3), .feather(pixels: 0), .feather(pixels: -1)],
                           to: mask.plane)
        #expect(mask.values == noise)
    }

    @Test func featherRampsLikeAGaussianEdge() {
        // A vertical edge at x = 40 (0 left, 255 right), feathered by 8 px: σ = 4, so sample x
        // (centre x + 0.5) is 255 · Φ((x + 0.5 − 40) / 4) of the way up.
        let width = 80, height = 6
        let mask = TestPlane(width: width, height: height,
                             values: (0..<(width * height)).map { $0 % width >= 40 ? 255 : 0 })
        MaskShaper().apply(.feather(pixels: 8), to: mask.plane)
        let row = mask.rows[3]
        func phi(_ z: Double) -> Double { 0.5 * erfc(-z / 2.0.squareRoot()) }
        let expected: [Double] = (0..<width).map { x in 255 * phi((Double(x) + 0.5 - 40) / 4) }
        let worst = (0..<width).map { abs(Double(row[$0]) - expected[$0]) }.max() ?? 0
        #expect(worst <= 3)
        #expect(row[39] < 128 && row[40] > 128 && row[30] < 10 && row[50] > 245)
    }

    @Test func operationsApplyInOrder() {
        let mask = Self.dots(width: 9, height: 9, at: [(4, 4)])
        MaskShaper().apply([.expand(pixels: 1), .invert], to: mask.plane)
        let expected = Self.insideSquare(width: 9, height: 9, around: [(4, 4)], radius: 1).map { $0 ? UInt8(0) : 255 }
        #expect(mask.values == expected)
    }
}

@Suite struct MaskSmoothingTests {
    @Test func blinkingMaskIsDampedBySlidingMean() throws {
        // Over 3 frames, means of 255, 0, 255, 0, …: 255/1, 255/2 = 127.5 → 128, 510/3 = 170,
        // then windows (0,255,0) = 85 and (255,0,255) = 170 alternate.
        let smoother = try MaskSmoother(frames: 3)
        var outputs: [UInt8] = []
        for frame in 0..<7 {
            let mask = TestPlane(width: 3, height: 2, fill: frame % 2 == 0 ? 255 : 0)
            smoother.smooth(mask.plane)
            #expect(Set(mask.values).count == 1)
            #expect(mask.paddingIntact)
            outputs.append(mask.plane[0, 0])
        }
        #expect(outputs == [255, 128, 170, 85, 170, 85, 170])
    }

    @Test func sizeChangeAndResetStartAfresh() throws {
        let smoother = try MaskSmoother(frames: 4)
        let first = TestPlane(width: 4, height: 4, fill: 0)
        smoother.smooth(first.plane)
        let resized = TestPlane(width: 5, height: 3, fill: 200)
        smoother.smooth(resized.plane)
        #expect(Set(resized.values) == [200])
        let next = TestPlane(width: 5, height: 3, fill: 100)
        smoother.smooth(next.plane)
        #expect(Set(next.values) == [150])
        smoother.reset()
        let afterReset = TestPlane(width: 5, height: 3, fill: 7)
        smoother.smooth(afterReset.plane)
        #expect(Set(afterReset.values) == [7])
    }

    @Test func samplesAreSmoothedIndependently() throws {
        let smoother = try MaskSmoother(frames: 2)
        let a = TestPlane(width: 2, height: 1, values: [10, 255])
        let b = TestPlane(width: 2, height: 1, values: [20, 0])
        smoother.smooth(a.plane)
        smoother.smooth(b.plane)
        #expect(b.values == [15, 128])  // (10 + 20)/2 and (255 + 0)/2 = 127.5 → 128
    }

    @Test func oneFrameWindowChangesNothingAndBadCountsAreUsageErrors() throws {
        let smoother = try MaskSmoother(frames: 1)
        for value: UInt8 in [3, 250, 9] {
            let mask = TestPlane(width: 2, height: 2, fill: value)
            smoother.smooth(mask.plane)
            #expect(Set(mask.values) == [value])
        }
        for bad in [0, -2, MaskSmoother.maximumFrames + 1] {
            #expect(throws: ReplayError.self) { try MaskSmoother(frames: bad) }
            do {
                _ = try MaskSmoother(frames: bad)
            } catch {
                #expect(error.kind == .usage && error.message.contains("`BackgroundSettings.smoothFrames`") && error.options == ["BackgroundSettings.smoothFrames"] && error.message.contains("\(bad)"))
            }
        }
    }
}

@Suite struct MaskScalerTests {
    @Test func twoByTwoUpscalesToFourByFour() {
        // Source centres sit at destination positions 1 and 3 (in destination pixels), so the
        // destination columns sample source x = clamp((i + 0.5)/2 − 0.5) = 0, 0.25, 0.75, 1.
        // Row 0: 0, 25, 75, 100.   Row 3: 200, 160, 80, 40.
        // Row 1 = ¾·row 0 + ¼·row 3: 50, 58.75, 76.25, 85.   Row 2 = ¼·row 0 + ¾·row 3: 150, 126.25, 78.75, 55.
        let source = TestPlane(rows: [[0, 100], [200, 40]])
        let destination = TestPlane(width: 4, height: 4, fill: 0)
        BilinearPlaneScaler().scale(source.plane, into: destination.plane)
        #expect(destination.rows == [
            [0, 25, 75, 100],
            [50, 59, 76, 85],
            [150, 126, 79, 55],
            [200, 160, 80, 40],
        ])
        #expect(destination.paddingIntact)
    }

    @Test func halvingAveragesTwoByTwoBlocks() {
        // 4 → 2: destination centres map to source 0.5 and 2.5, halfway between sample pairs.
        let source = TestPlane(rows: [
            [0, 40, 100, 100],
            [80, 120, 100, 101],
            [255, 255, 0, 10],
            [255, 255, 20, 30],
        ])
        let destination = TestPlane(width: 2, height: 2, fill: 0)
        BilinearPlaneScaler().scale(source.plane, into: destination.plane)
        // (0+40+80+120)/4 = 60, (100+100+100+101)/4 = 100.25, 255, (0+10+20+30)/4 = 15.
        #expect(destination.rows == [[60, 100], [255, 15]])
    }

    @Test func nonUniformScaleAndReuseAcrossSizes() {
        let scaler = BilinearPlaneScaler()
        // 1×1 → anything is constant; 3×1 → 6×2 keeps each row and interpolates columns.
        let dot = TestPlane(width: 1, height: 1, fill: 77)
        let big = TestPlane(width: 5, height: 3, fill: 0)
        scaler.scale(dot.plane, into: big.plane)
        #expect(Set(big.values) == [77])
        let row = TestPlane(rows: [[0, 120, 240]])
        let wide = TestPlane(width: 6, height: 2, fill: 0)
        scaler.scale(row.plane, into: wide.plane)
        // x = clamp((i + 0.5)/2 − 0.5) = 0, 0.25, 0.75, 1.25, 1.75, 2 → 0, 30, 90, 150, 210, 240.
        #expect(wide.rows == [[0, 30, 90, 150, 210, 240], [0, 30, 90, 150, 210, 240]])
        let same = TestPlane(rows: [[1, 2], [3, 4]])
        let copy = TestPlane(width: 2, height: 2, fill: 0)
        scaler.scale(same.plane, into: copy.plane)
        #expect(copy.values == [1, 2, 3, 4])
    }
}

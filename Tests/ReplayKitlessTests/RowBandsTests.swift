import Testing
@testable import ReplayKitless

/// Every row is visited exactly once whatever the worker count, so a kernel's output cannot
/// depend on how the picture was split.
@Suite struct RowBandsTests {
    @Test(arguments: [(0, 4), (1, 4), (15, 2), (720, 1), (720, 2), (721, 3), (1080, 16), (40, 64)])
    func bandsCoverEveryRowOnce(rows: Int, workers: Int) {
        let visits = Locked([Int](repeating: 0, count: rows))
        let bandCount = Locked(0)
        RowBands.forEach(rows: rows, workers: workers) { band in
            bandCount.withLock { $0 += 1 }
            visits.withLock { for row in band { $0[row] += 1 } }
        }
        #expect(visits.withLock { $0 } == [Int](repeating: 1, count: rows))
        // Bands hold at least 16 rows: never more bands than workers or than rows / 16.
        #expect(bandCount.withLock { $0 } <= max(1, min(workers, rows / 16)))
    }
}

import Foundation
import FxTestSupport
import Testing
@testable import ReplayKitless

/// ``FramesInFlight`` adds lanes only while they hold the run back: not when the consumer or the
/// producer is the slower side. Work here sleeps rather than computes, so a lane pays (or not)
/// whatever the number of cores the tests run on. (Under a sanitizer the lanes counted are not
/// checked: its slowdown beside the other suites, not the pauses, then decides what pays.)
@Suite struct FramesInFlightTests {
    /// Runs `jobs` jobs through a pool of at most `lanes` lanes, each job's work sleeping
    /// `workMicroseconds`, each delivery `deliverMicroseconds`, the producer `produceMicroseconds`
    /// before each job (`inputWaiting` answering whether it had one ready). Returns the lanes
    /// started and the outputs in the order delivered.
    /// `oneAtATime`: the work holds one lock for all lanes, so more lanes cannot do more of it.
    static func run(lanes: Int, jobs: Int, workMicroseconds: UInt32, deliverMicroseconds: UInt32 = 0,
                    produceMicroseconds: UInt32 = 0, oneAtATime: Bool = false) -> (lanes: Int, delivered: [Int]) {
        let delivered = Locked<[Int]>([])
        let serial = NSLock()
        let pool = FramesInFlight<Int, Int>(lanes: lanes, work: { job, _, _ throws(ReplayError) in
            if oneAtATime { serial.lock() }
            usleep(workMicroseconds)
            if oneAtATime { serial.unlock() }
            return job
        }, deliver: { output in
            usleep(deliverMicroseconds)
            delivered.withLock { $0.append(output) }
            return true
        }, discard: { _ in }, fail: { _ in })
        for job in 0..<jobs {
            usleep(produceMicroseconds)
            guard let slot = pool.takeSlot() else { break }
            #expect(slot < lanes * FramesInFlight<Int, Int>.slotsPerLane)
            pool.submit(.success(job), slot: slot)
        }
        pool.finish()
        return (pool.lanes, delivered.withLock { $0 })
    }

    @Test func lanesDoubleWhileTheWorkIsTheSlowerSide() {
        // (Long pauses, so that a loaded machine's late wake-ups stay a small share of them.)
        let result = Self.run(lanes: 6, jobs: 140, workMicroseconds: 20_000)
        if !runsUnderSanitizer { #expect(result.lanes == 6) }  // 1, 2, 4, then the 2 left
        #expect(result.delivered == Array(0..<140))
    }

    /// The lanes are busy (each waits its turn inside the work), but a second lane does not raise
    /// the frame rate: it is parked again, and no more are added.
    @Test func lanesThatDoNotRaiseTheRateAreParked() {
        let result = Self.run(lanes: 8, jobs: 60, workMicroseconds: 10_000, oneAtATime: true)
        if !runsUnderSanitizer { #expect(result.lanes == 1) }
        #expect(result.delivered == Array(0..<60))
    }

    @Test func aSlowConsumerKeepsOneLane() {
        let result = Self.run(lanes: 8, jobs: 40, workMicroseconds: 0, deliverMicroseconds: 3000)
        if !runsUnderSanitizer { #expect(result.lanes == 1) }
        #expect(result.delivered == Array(0..<40))
    }

    @Test func aSlowProducerKeepsOneLane() {
        let result = Self.run(lanes: 8, jobs: 40, workMicroseconds: 500, produceMicroseconds: 10_000)
        if !runsUnderSanitizer { #expect(result.lanes == 1) }
        #expect(result.delivered == Array(0..<40))
    }
}

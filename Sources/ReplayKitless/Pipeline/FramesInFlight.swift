import Foundation

/// Several frames worked on at once by `lanes` threads, handed on in the order they came in.
///
/// The caller submits jobs in order, each with a *slot*: one of `slots` sets of per-frame memory,
/// taken with ``takeSlot()`` (which waits while every slot is in flight, so memory stays bounded)
/// and free again once that frame has been handed on. Each lane thread takes the oldest job and
/// runs `work` on it; results wait in a reorder buffer until every earlier one is handed on, and
/// are then passed to `deliver` one at a time, in submission order. A failure travels the same
/// way: it is reported when its turn comes, so the error a run stops with is always the one of
/// the earliest failing frame, whatever the threads' timing.
final class FramesInFlight<Job, Output>: @unchecked Sendable {
    typealias Work = (_ job: Job, _ slot: Int, _ lane: Int) throws(ReplayError) -> Output

    private let work: Work
    private let deliver: (Output) -> Bool
    private let discard: (Output) -> Void
    private let fail: (ReplayError) -> Void
    private let freeSlots: BoundedQueue<Int>
    private let jobs: BoundedQueue<(number: Int, slot: Int, job: Result<Job, ReplayError>)>
    private let lanesDone = DispatchGroup()
    private let lock = NSLock()
    /// Finished jobs by number, waiting for the earlier ones.
    private var finished: [Int: (slot: Int, result: Result<Output, ReplayError>)] = [:]
    private var nextToDeliver = 0
    private var submitted = 0
    /// One thread at a time hands results on (outside the lock), which keeps them in order.
    private var delivering = false
    private var stopped = false

    /// Starts `lanes` threads. `deliver` gets the outputs in order and returns `false` to stop;
    /// `discard` gets those never delivered (after a failure or a stop); `fail` gets the first
    /// failure in submission order.
    init(lanes: Int, slots: Int, work: @escaping Work, deliver: @escaping (Output) -> Bool,
         discard: @escaping (Output) -> Void, fail: @escaping (ReplayError) -> Void) {
        self.work = work
        self.deliver = deliver
        self.discard = discard
        self.fail = fail
        freeSlots = BoundedQueue(capacity: slots)
        for slot in 0..<slots { freeSlots.put(slot) }
        jobs = BoundedQueue(capacity: slots)
        for lane in 0..<lanes {
            lanesDone.enter()
            JobThread.start { [self] in
                while let next = self.jobs.take() {
                    let result: Result<Output, ReplayError>
                    switch next.job {
                    case .success(let job):
                        do throws(ReplayError) { result = .success(try self.work(job, next.slot, lane)) } catch { result = .failure(error) }
                    case .failure(let error):
                        result = .failure(error)
                    }
                    self.finish(next.number, slot: next.slot, result)
                }
                self.lanesDone.leave()
            }
        }
    }

    /// A free slot, waiting while all are in flight; `nil` once stopped.
    func takeSlot() -> Int? { freeSlots.take() }

    /// Queues `job` (or the failure of its in-order step) on `slot`, after every earlier job.
    /// Returns `false` once stopped.
    @discardableResult
    func submit(_ job: Result<Job, ReplayError>, slot: Int) -> Bool {
        let number = lock.withLock {
            defer { submitted += 1 }
            return submitted
        }
        return jobs.put((number, slot, job))
    }

    /// No more jobs: waits until every lane has finished and everything is handed on.
    func finish() {
        jobs.close()
        lanesDone.wait()
    }

    /// Stops at once: queued jobs are dropped, the lanes end after their current job.
    func cancel() {
        lock.withLock { stopped = true }
        jobs.cancel()
        freeSlots.cancel()
    }

    private func finish(_ number: Int, slot: Int, _ result: Result<Output, ReplayError>) {
        lock.lock()
        finished[number] = (slot, result)
        guard !delivering else {
            lock.unlock()
            return
        }
        delivering = true
        while let (slot, result) = finished.removeValue(forKey: nextToDeliver).map({ ($0.slot, $0.result) }) {
            nextToDeliver += 1
            let stop = stopped
            lock.unlock()
            switch result {
            case .success(let output) where !stop:
                if deliver(output) { freeSlots.put(slot) } else { cancel() }
            case .success(let output):
                discard(output)
            case .failure(let error):
                if !stop { fail(error) }
                cancel()
            }
            lock.lock()
        }
        delivering = false
        lock.unlock()
    }
}

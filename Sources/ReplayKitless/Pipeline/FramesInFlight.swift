import Foundation

/// Several frames worked on at once by up to `lanes` threads, handed on in the order they came in.
///
/// The caller submits jobs in order, each with a *slot*: one of ``slotsPerLane`` sets of per-frame
/// memory per lane (numbers below `lanes` × ``slotsPerLane``), taken with ``takeSlot()`` (which waits while every slot is in
/// flight, so memory stays bounded) and free again once that frame has been handed on. Each lane
/// thread takes the oldest job and runs `work` on it; results wait in a reorder buffer until every
/// earlier one is handed on, and are then passed to `deliver` one at a time, in submission order.
/// A failure travels the same way: it is reported when its turn comes, so the error a run stops
/// with is always the one of the earliest failing frame, whatever the threads' timing.
///
/// Lanes are added only while they pay: a pool started with fewer than `lanes` doubles them (up to
/// `lanes`) when the lanes hold the run back, and parks the lanes it added if the run's frame rate
/// did not rise with them (``takeSlot()``). Light work held back by the encoder or the decoder so
/// keeps one lane and the memory of two frames, however many cores it may use; work that more
/// lanes do not speed up (cores or memory bandwidth already used up) keeps the lanes that paid.
final class FramesInFlight<Job, Output>: @unchecked Sendable {
    typealias Work = (_ job: Job, _ slot: Int, _ lane: Int) throws(ReplayError) -> Output

    /// Frames a lane holds at most: one it works on, one waiting for it (or to be handed on).
    static var slotsPerLane: Int { 2 }
    /// The share of a window's time the lanes must spend working for more lanes to be added.
    static var busyShareToAddLanes: Double { 0.85 }
    /// How much the frame rate must rise with added lanes for them to be kept working.
    static var rateGainToKeepLanes: Double { 1.1 }

    /// The most lanes the pool may start.
    let maximumLanes: Int
    /// The lanes working: those started, less any parked because they did not pay.
    var lanes: Int { lock.withLock { workingLanes } }

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
    private var startedLanes = 0
    /// Lanes numbered from this one on are parked: they take no jobs.
    private var workingLanes = 0
    /// Wakes parked lanes when the jobs end.
    private let parked = NSCondition()
    private var jobsEnded = false
    /// The current window of frames over which the lanes' work is timed: frames taken (counted
    /// by the submitting thread), since when, and the time lanes spent in `work` (under the lock).
    private var window = (frames: 0, started: ContinuousClock.now, working: Duration.zero)
    /// Where adding lanes stands (the submitting thread's alone).
    private var growth = Growth.watching(busy: Windows())

    private enum Growth {
        /// Counting the windows in a row in which the lanes were busy.
        case watching(busy: Windows)
        /// Lanes were just added: the next window is their start (their slots fill at once).
        case settling(before: Windows, lanesBefore: Int)
        /// Two windows that tell whether the added lanes raised the frame rate over `before`'s.
        case judging(before: Windows, lanesBefore: Int, after: Windows)
        /// No more lanes: all started, or the last ones added did not pay.
        case settled
    }

    /// Windows in a row: their frames and time, for a frame rate steadier than one window's.
    private struct Windows {
        var count = 0
        var frames = 0
        var time = Duration.zero
        var rate: Double { Double(frames) / max(time / .seconds(1), 1e-9) }

        func adding(frames: Int, time: Duration) -> Windows {
            Windows(count: count + 1, frames: self.frames + frames, time: self.time + time)
        }
    }
    /// One thread at a time hands results on (outside the lock), which keeps them in order.
    private var delivering = false
    private var stopped = false

    /// Starts `startingLanes` lane threads (one by default), of at most `lanes`. `deliver` gets the
    /// outputs in order and returns `false` to stop; `discard` gets those never delivered (after a
    /// failure or a stop); `fail` gets the first failure in submission order.
    init(lanes: Int, startingLanes: Int = 1, work: @escaping Work, deliver: @escaping (Output) -> Bool,
         discard: @escaping (Output) -> Void, fail: @escaping (ReplayError) -> Void) {
        maximumLanes = max(1, lanes)
        self.work = work
        self.deliver = deliver
        self.discard = discard
        self.fail = fail
        freeSlots = BoundedQueue(capacity: maximumLanes * Self.slotsPerLane)
        jobs = BoundedQueue(capacity: maximumLanes * Self.slotsPerLane)
        addLanes(min(max(1, startingLanes), maximumLanes))
    }

    /// A free slot, waiting while all are in flight; `nil` once stopped.
    ///
    /// Windows of two frames per lane (eight at least) judge whether the lanes hold the run back:
    /// when they spent ``busyShareToAddLanes`` of the window's time working, they were neither
    /// waiting for jobs (a slower producer) nor handing frames on to a slower consumer. After two
    /// such windows in a row (one can be a moment the lanes were crowded off the cores), the lanes
    /// double. After one window for the new lanes to start, two more give the frame rate, compared
    /// with that of the two busy windows before: if it rose less than ``rateGainToKeepLanes``, the
    /// added lanes are parked and no more are added.
    func takeSlot() -> Int? {
        let slot = freeSlots.take()
        let (lanes, frames, elapsed, working) = lock.withLock {
            window.frames += 1
            return (workingLanes, window.frames, ContinuousClock.now - window.started, window.working)
        }
        guard frames >= max(8, 2 * lanes) else { return slot }
        switch growth {
        case .watching where lanes == maximumLanes:
            growth = .settled
        case .watching(let busyWindows):
            let busy = working / (elapsed * lanes) >= Self.busyShareToAddLanes
            let counted = busy ? busyWindows.adding(frames: frames, time: elapsed) : Windows()
            if counted.count == 2 {
                addLanes(min(lanes, maximumLanes - lanes))
                growth = .settling(before: counted, lanesBefore: lanes)
            } else {
                growth = .watching(busy: counted)
            }
        case .settling(let before, let lanesBefore):
            growth = .judging(before: before, lanesBefore: lanesBefore, after: Windows())
        case .judging(let before, let lanesBefore, let after):
            let after = after.adding(frames: frames, time: elapsed)
            if after.count < 2 {
                growth = .judging(before: before, lanesBefore: lanesBefore, after: after)
            } else if after.rate >= before.rate * Self.rateGainToKeepLanes {
                growth = .watching(busy: Windows())
            } else {
                park(above: lanesBefore)
                growth = .settled
            }
        case .settled:
            break
        }
        lock.withLock { window = (0, .now, .zero) }
        return slot
    }

    /// Starts `count` more lane threads, each bringing its slots.
    private func addLanes(_ count: Int) {
        let first = lock.withLock {
            defer {
                startedLanes += count
                workingLanes = startedLanes
            }
            return startedLanes
        }
        for lane in first ..< first + count {
            for slot in lane * Self.slotsPerLane ..< (lane + 1) * Self.slotsPerLane { freeSlots.put(slot) }
            lanesDone.enter()
            JobThread.start { [self] in
                while self.waitWhileParked(lane), let next = self.jobs.take() {
                    let result: Result<Output, ReplayError>
                    switch next.job {
                    case .success(let job):
                        let started = ContinuousClock.now
                        do throws(ReplayError) { result = .success(try self.work(job, next.slot, lane)) } catch { result = .failure(error) }
                        self.lock.withLock { self.window.working += .now - max(started, self.window.started) }
                    case .failure(let error):
                        result = .failure(error)
                    }
                    self.finish(next.number, slot: next.slot, result)
                }
                self.lanesDone.leave()
            }
        }
    }

    /// Lanes numbered `count` and up take no more jobs (their slots stay in use by the others).
    private func park(above count: Int) {
        lock.withLock { workingLanes = count }
    }

    /// Waits while `lane` is parked, until the jobs end; `true` to go on taking jobs.
    private func waitWhileParked(_ lane: Int) -> Bool {
        guard lane >= lock.withLock({ workingLanes }) else { return true }
        parked.lock()
        while !jobsEnded { parked.wait() }
        parked.unlock()
        return false
    }

    /// Lets parked lanes end.
    private func endJobs() {
        parked.lock()
        jobsEnded = true
        parked.broadcast()
        parked.unlock()
    }

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
        endJobs()
        lanesDone.wait()
    }

    /// Stops at once: queued jobs are dropped, the lanes end after their current job.
    func cancel() {
        lock.withLock { stopped = true }
        jobs.cancel()
        freeSlots.cancel()
        endJobs()
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

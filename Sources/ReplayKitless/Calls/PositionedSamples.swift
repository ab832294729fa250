/// Stereo float samples waiting to be mixed, with the position of the first on the call's sample
/// clock. A window slides over it: the resampler writes at the end, the mix reads and drops from
/// the front, so it holds one mix window plus one decoded frame, never a whole track.
final class PositionedSamples {
    /// The two planes (left, right); only `head..<tail` is meaningful.
    private var planes: [UnsafeMutablePointer<Float>]
    /// Where the resampler writes: `planes` shifted to `tail`, as `float **` for libswresample.
    private let writePointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>?>.allocate(capacity: 2)
    private var capacity = 0
    private var head = 0
    private var tail = 0
    /// Call sample index of the first held sample.
    private(set) var start: Int64 = 0

    init() {
        planes = []
        grow(to: 8192)
    }

    deinit {
        planes.forEach { $0.deallocate() }
        writePointers.deallocate()
    }

    var count: Int { tail - head }
    /// Call sample index just after the last held sample.
    var end: Int64 { start + Int64(count) }

    /// Starts afresh at `position` (when nothing is held, or to forget what is).
    func restart(at position: Int64) {
        head = 0
        tail = 0
        start = position
    }

    /// Holds silence up to `position` (a gap in the track's timestamps).
    func padSilence(upTo position: Int64) {
        let n = Int(position - end)
        guard n > 0 else { return }
        let out = reserve(n)
        for channel in 0..<2 { out[channel]!.update(repeating: 0, count: n) }
        commit(n, mono: false)
    }

    /// Room for `n` more samples per channel at the end; the pointers stay valid until the next call.
    func reserve(_ n: Int) -> UnsafeMutablePointer<UnsafeMutablePointer<Float>?> {
        if tail + n > capacity {
            if head > 0 {
                for plane in planes { plane.update(from: plane + head, count: count) }
                tail -= head
                head = 0
            }
            if tail + n > capacity { grow(to: max(capacity * 2, tail + n)) }
        }
        writePointers[0] = planes[0] + tail
        writePointers[1] = planes[1] + tail
        return writePointers
    }

    /// Takes `n` samples written through ``reserve(_:)``; `mono`: only the left plane was
    /// written, and it plays on both sides.
    func commit(_ n: Int, mono: Bool) {
        if mono { (planes[1] + tail).update(from: planes[0] + tail, count: n) }
        tail += n
    }

    /// Forgets the samples before call sample `position`.
    func drop(before position: Int64) {
        let n = Int(min(max(0, position - start), Int64(count)))
        head += n
        start += Int64(n)
        if head == tail { restart(at: start) }
    }

    /// Adds the held samples that fall in `position..<position + count` (call samples) into the
    /// two planes, which start at `position`; nothing past `limit` (a stream's stop).
    func add(into left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, at position: Int64, count n: Int,
             limit: Int64) {
        let from = max(position, start), to = min(position + Int64(n), end, limit)
        guard to > from else { return }
        let source = head + Int(from - start), target = Int(from - position), length = Int(to - from)
        let l = planes[0] + source, r = planes[1] + source, outL = left + target, outR = right + target
        for i in 0..<length {
            outL[i] += l[i]
            outR[i] += r[i]
        }
    }

    private func grow(to newCapacity: Int) {
        planes = (0..<2).map { channel in
            let plane = UnsafeMutablePointer<Float>.allocate(capacity: newCapacity)
            if channel < planes.count {
                plane.update(from: planes[channel] + head, count: count)
                planes[channel].deallocate()
            }
            return plane
        }
        tail -= head
        head = 0
        capacity = newCapacity
    }
}

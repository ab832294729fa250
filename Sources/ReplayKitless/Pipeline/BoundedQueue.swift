import Foundation

/// A blocking first-in first-out queue of bounded depth between two pipeline stages.
/// A full queue blocks the producer, which bounds memory; closing wakes everyone.
final class BoundedQueue<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element?]
    private var head = 0
    private var count = 0
    private var closed = false

    init(capacity: Int) {
        items = Array(repeating: nil, count: max(1, capacity))
    }

    /// Adds an element, waiting while the queue is full. Returns `false` when the queue was closed.
    @discardableResult
    func put(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while count == items.count && !closed { condition.wait() }
        guard !closed else { return false }
        items[(head + count) % items.count] = element
        count += 1
        condition.broadcast()
        return true
    }

    /// Removes the oldest element, waiting while the queue is empty. `nil` once closed and empty.
    func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while count == 0 && !closed { condition.wait() }
        guard count > 0 else { return nil }
        let element = items[head]
        items[head] = nil
        head = (head + 1) % items.count
        count -= 1
        condition.broadcast()
        return element
    }

    /// No more elements will be put; takers drain what is left, then get `nil`.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Closes and drops whatever is queued (a stage failed).
    func cancel() {
        condition.lock()
        closed = true
        for index in items.indices { items[index] = nil }
        count = 0
        condition.broadcast()
        condition.unlock()
    }
}

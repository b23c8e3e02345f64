import Dispatch

/// A serial executor on a dispatch queue that tells whether the current thread runs one of its jobs: an
/// actor built on it (`nonisolated var unownedExecutor`) lets a test check where code ran without the trap
/// of `preconditionIsolated`.
final class QueueExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked: every stored property is immutable, and the queue is thread-safe.
    private static let key = DispatchSpecificKey<Int>()
    private static let serial = Counter()
    private let id: Int
    private let queue: DispatchQueue

    init(label: String) {
        id = Self.serial.next()
        queue = DispatchQueue(label: "keystone.tests.\(label).\(id)")
        queue.setSpecific(key: Self.key, value: id)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Whether the current thread is running a job of this executor.
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: Self.key) == id
    }
}

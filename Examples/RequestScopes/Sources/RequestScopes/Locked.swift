import Foundation

/// A value guarded by a lock, for the mutable state of the `Sendable` services.
///
/// It uses `NSLock` rather than `Synchronization.Mutex` so that the tests run clean under ThreadSanitizer on
/// Linux: TSan knows the pthread mutex behind `NSLock`, while it reported accesses guarded by `Mutex` (a
/// futex it does not see) as races.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

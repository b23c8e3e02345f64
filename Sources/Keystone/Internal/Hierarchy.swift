public import Foundation

/// What one container hierarchy shares: the recursive lock that every synchronized view, `Lazy` and
/// `Provider` of the hierarchy takes, and the state of the resolution in flight.
@usableFromInline
final class Hierarchy: @unchecked Sendable {
    // @unchecked: `lock` is thread-safe; `state` and `isInspecting` are used under `lock` by every
    // synchronized path, and by the one thread an unsynchronized container is confined to otherwise.

    @usableFromInline let lock = NSRecursiveLock()
    @usableFromInline let state = ResolutionState()
    /// Set while `verify()` or `dependencyGraph()` explores the hierarchy, under the lock: resolves then
    /// take the slow path, which records what they do and keeps instances in a throwaway sandbox.
    @exclusivity(unchecked) @usableFromInline var isInspecting = false

    init() {}

    /// Runs `body` holding the hierarchy's lock, which the same thread may take again inside it.
    @inlinable
    func withLock<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

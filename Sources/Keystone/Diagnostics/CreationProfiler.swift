#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Records the creations of one hierarchy while ``Container/profilingCreations(_:)`` runs its body: each
/// creation is opened when its factory is about to run and closed once its `initCompleted` actions are
/// done, from whatever thread or task runs it.
///
/// The engine holds it in `ResolutionState.call.profiler` only while a profile is recorded; the resolve
/// path reads that one field before creating an instance and otherwise pays nothing.
@usableFromInline
final class CreationProfiler: Sendable {
    private struct Open {
        let key: ServiceKey
        let scope: String
        let start: ContinuousClock.Instant
        let parent: Int?
        let thread: UInt64
        var end: ContinuousClock.Instant?
        /// The time of the creations made inside this one, which its own time leaves out.
        var nested: Duration = .zero
    }

    private struct State {
        var creations: [Open] = []
        /// The synchronous creations in flight, innermost last: the parent of the next one. They nest
        /// strictly, since a synchronous creation starts and ends under the hierarchy's lock.
        var stack: [Int] = []
        /// The threads seen, numbered from 1 in the order they first ran a factory.
        var threads: [UInt: UInt64] = [:]
    }

    let began = ContinuousClock.now
    private let state = LockedValue(State())

    /// Opens the record of a creation of `key` that starts now on this thread. Its parent is the
    /// innermost synchronous creation in flight, for a `synchronous` one, else `parent` (a record of this
    /// profile opened before it; any other index is ignored). Returns its index, for ``close(_:)``.
    func open(_ key: ServiceKey, scope: String, parent: Int?, synchronous: Bool) -> Int {
        let thread = UInt(bitPattern: Int(bitPattern: pthread_self()))
        return state.withLock { state in
            // Read under the lock, so that records in index order are in start order.
            let start = ContinuousClock.now
            let number = state.threads[thread] ?? UInt64(state.threads.count + 1)
            state.threads[thread] = number
            let index = state.creations.count
            // A parent is a record of this profile opened before this one.
            let given = parent.flatMap { $0 < state.creations.count ? $0 : nil }
            let parent = synchronous ? state.stack.last ?? given : given
            state.creations.append(Open(key: key, scope: scope, start: start, parent: parent, thread: number))
            if synchronous {
                state.stack.append(index)
            }
            return index
        }
    }

    /// Closes the record `index`, now.
    func close(_ index: Int) {
        let end = ContinuousClock.now
        state.withLock { state in
            state.creations[index].end = end
            if state.stack.last == index {
                state.stack.removeLast()
            }
            if let parent = state.creations[index].parent {
                state.creations[parent].nested += end - state.creations[index].start
            }
        }
    }

    /// The profile recorded so far; a creation still in flight counts as ending now.
    func profile() -> CreationProfile {
        let now = ContinuousClock.now
        let creations = state.withLock { $0.creations }
        return CreationProfile(
            records: creations.map { creation in
                let duration = (creation.end ?? now) - creation.start
                return CreationRecord(
                    key: creation.key,
                    scope: creation.scope,
                    start: creation.start - began,
                    duration: duration,
                    selfDuration: max(.zero, duration - creation.nested),
                    parent: creation.parent,
                    thread: creation.thread
                )
            }
        )
    }
}

public import Foundation

/// What one container hierarchy shares: the recursive lock that every synchronized view, `Lazy` and
/// `Provider` of the hierarchy takes (and registration, configuration and reset), and the state of the
/// resolution in flight.
@usableFromInline
final class Hierarchy: @unchecked Sendable {
    // @unchecked: `lock` is thread-safe; every other field is used under `lock` by every synchronized
    // path, and by the one thread an unsynchronized container is confined to otherwise. The fields skip
    // dynamic exclusivity checks for the same reason: rows `container` +59%, `synchronized-container`
    // +27%, `failed` +22% instructions with them.

    @usableFromInline let lock = NSRecursiveLock()
    @usableFromInline let state = ResolutionState()
    /// The one flag the resolve path reads before looking anything up: set while resolves are observed
    /// (counted or inspected), so that ``attend()`` runs first. Kept equal to `isObserved` by its parts'
    /// setters, under the lock.
    @exclusivity(unchecked) @usableFromInline private(set) var needsAttention = false
    /// Set while `verify()` or `dependencyGraph()` explores the hierarchy, under the lock: resolves then
    /// take the typed path, which records what they ask for (the entries they reach are scratch copies).
    var isInspecting = false {
        didSet { needsAttention = isObserved }
    }
    /// Whether resolves are counted for the status report (``Container/countsResolutions``).
    var countsResolutions = false {
        didSet { needsAttention = isObserved }
    }

    /// Whether a resolve that would let an instance a container keeps capture a registration of a
    /// container below it fails (``Container/validatesScopes``).
    var validatesScopes = false {
        didSet {
            needsAttention = isObserved
            // A call that validation fails must keep nothing: the engine notes what it keeps meanwhile.
            state.call.tracksKept = validatesScopes
        }
    }

    /// Whether resolves must take the typed path, which counts them, records them or checks their scopes.
    var isObserved: Bool {
        isInspecting || countsResolutions || validatesScopes
    }
    /// Set by ``Registry`` once one of its services in the hierarchy has the `.lazy` lifecycle: until then
    /// the property wrappers skip looking up their service's lifecycle (`@Inject` row).
    @exclusivity(unchecked) @usableFromInline var hasLazyFrontServices = false
    /// The creations of `.container` and `.multiton` async instances in flight, by entry and arguments
    /// (see `SingleFlight`).
    var flights: [FlightKey: SingleFlight] = [:]

    init() {}

    /// Runs `body` holding the hierarchy's lock, which the same thread may take again inside it.
    @inlinable
    func withLock<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// How resolves are observed right now.
    @usableFromInline
    enum Observation {
        /// Not at all.
        case none
        /// Counted for the status report.
        case counting
        /// Recorded by `verify()` or `dependencyGraph()`, which need the typed path.
        case inspecting
        /// Checked for captive dependencies (``Container/validatesScopes``) on the typed path.
        case validating
    }

    /// What a resolve does when ``needsAttention`` is set, before its lookup: says how the resolve is
    /// observed.
    @usableFromInline @inline(never)
    func attend() -> Observation {
        // Read as `needsAttention` is: by a thread that holds the lock, or the one an unsynchronized
        // container is confined to; every write happens under the lock.
        isInspecting ? .inspecting : validatesScopes ? .validating : countsResolutions ? .counting : .none
    }
}

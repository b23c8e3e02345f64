public import Foundation

/// What one container hierarchy shares: the recursive lock that every synchronized view, `Lazy` and
/// `Provider` of the hierarchy takes, the state of the resolution in flight, and the registrations not
/// yet published.
@usableFromInline
final class Hierarchy: @unchecked Sendable {
    // @unchecked: `lock` is thread-safe; every other field is used under `lock` by every synchronized
    // path, and by the one thread an unsynchronized container is confined to otherwise. The fields skip
    // dynamic exclusivity checks for the same reason: rows `container` +59%, `synchronized-container`
    // +27%, `failed` +22% instructions with them.

    @usableFromInline let lock = NSRecursiveLock()
    @usableFromInline let state = ResolutionState()
    /// The one flag the resolve path reads before looking anything up: set while registrations are
    /// pending or resolves are observed (counted or inspected), so that ``attend()`` runs first. Kept
    /// equal to `hasPending || isObserved` by their setters, under the lock.
    @exclusivity(unchecked) @usableFromInline private(set) var needsAttention = false
    /// Set while `verify()` or `dependencyGraph()` explores the hierarchy, under the lock: resolves then
    /// take the typed path, which records what they ask for (the entries they reach are scratch copies).
    var isInspecting = false {
        didSet { needsAttention = hasPending || isObserved }
    }
    /// Whether resolves are counted for the status report (``Container/countsResolutions``).
    var countsResolutions = false {
        didSet { needsAttention = hasPending || isObserved }
    }
    /// Registrations made but not visible yet: see ``PendingRegistration``.
    @exclusivity(unchecked) private var pending: [PendingRegistration] = []
    /// Whether `pending` has any.
    private(set) var hasPending = false {
        didSet { needsAttention = hasPending || isObserved }
    }

    /// Whether resolves must take the typed path, which counts them or records them.
    var isObserved: Bool {
        isInspecting || countsResolutions
    }
    /// Set once a synchronized view of the hierarchy exists. Before, the hierarchy is confined to one
    /// thread at a time and a registration is published at once; from then on, other threads may
    /// resolve while one registers, and registrations are published whole (``PendingRegistration``).
    @exclusivity(unchecked) private(set) var isShared = false
    /// Set by ``Registry`` once one of its services in the hierarchy has the `.lazy` lifecycle: until then
    /// the property wrappers skip looking up their service's lifecycle (`@Inject` row).
    @exclusivity(unchecked) @usableFromInline var hasLazyFrontServices = false
    /// The creations of `.container` async instances in flight, by entry (see `SingleFlight`).
    var flights: [ObjectIdentifier: SingleFlight] = [:]

    init() {}

    /// Runs `body` holding the hierarchy's lock, which the same thread may take again inside it.
    @inlinable
    func withLock<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Runs `body` holding the lock, with the registrations that are whole published before it, and this
    /// thread's published after it: for the fronts, whose registrations are whole when `body` returns.
    func withLockPublishing<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        lock.lock()
        defer { lock.unlock() }
        // Checked here, under the lock, so that the common case takes the lock once (`inject` row: 4,969
        // to 4,752 instructions).
        if hasPending {
            publishPending()
        }
        defer {
            if hasPending {
                publishPending()
            }
        }
        return try body()
    }

    /// How resolves are observed right now.
    @usableFromInline
    enum Observation {
        /// Not at all: only pending registrations called for attention.
        case none
        /// Counted for the status report.
        case counting
        /// Recorded by `verify()` or `dependencyGraph()`, which need the typed path.
        case inspecting
    }

    /// What a resolve does when ``needsAttention`` is set, before its lookup: publishes the registrations
    /// that are whole, and says how the resolve is observed.
    @usableFromInline @inline(never)
    func attend() -> Observation {
        // Read as `needsAttention` is: by a thread that holds the lock, or the one an unsynchronized
        // container is confined to; every write happens under the lock.
        if hasPending {
            publishPending()
        }
        return isInspecting ? .inspecting : countsResolutions ? .counting : .none
    }

    /// Marks the hierarchy as shared with other threads (``Container/synchronize()``).
    func share() {
        withLock { isShared = true }
    }

    // MARK: - Publishing registrations whole

    /// Keeps `entry`, just registered in `container` under `key`, out of every table until it is whole;
    /// publishes it at once while no other thread may be resolving. The caller holds the lock.
    func addPending(_ entry: any AnyServiceEntry, key: ServiceKey, in container: Container) {
        guard isShared else {
            container.publish(entry, under: key)
            return
        }
        pending.append(PendingRegistration(container: container, entry: entry, key: key))
        hasPending = true
    }

    /// Adds `slot`, a key forwarded to an entry that is not published yet, to that entry's pending
    /// registration; returns `false` when the entry is published already. The caller holds the lock.
    func addPendingForward(_ slot: Slot) -> Bool {
        guard let index = pending.lastIndex(where: { $0.entry === slot.entry }) else { return false }
        pending[index].forwarded.append(slot.key)
        return true
    }

    /// Publishes the registrations that are whole: every one this thread made, and those other threads
    /// made whose registering code no longer holds their entry.
    @usableFromInline @inline(never)
    func publishPending() {
        withLock {
            guard hasPending else { return }
            var ready: [PendingRegistration] = []
            var index = 0
            while index < pending.count {
                // Tested in place: a copy would hold a second reference.
                if pending[index].thread.isCurrent || isKnownUniquelyReferenced(&pending[index].holder) {
                    ready.append(pending.remove(at: index))
                } else {
                    index += 1
                }
            }
            // Settled before anything is published: publishing may release replaced instances, whose
            // deinitializers may register again.
            hasPending = !pending.isEmpty
            for registration in ready {
                registration.container.publish(
                    registration.entry,
                    under: registration.key,
                    forwarding: registration.forwarded
                )
            }
        }
    }

    /// Forgets the pending registrations of `container`, which is being deinitialized.
    func discardPending(of container: Container) {
        withLock {
            guard hasPending else { return }
            // Compared by identity: the unowned `container` of a record cannot be read while its
            // container is being deinitialized.
            let identity = ObjectIdentifier(container)
            pending.removeAll { $0.containerIdentity == identity }
            hasPending = !pending.isEmpty
        }
    }
}

/// A registration made but not yet published to its container's table, so that no other thread sees it
/// half configured.
///
/// `register` returns the entry, and the calls chained to it (`inObjectScope`, `initCompleted`,
/// `implements`) configure it after `register` has returned. The registration is published, whole, as
/// soon as one of these happens:
/// - the registering thread makes any other call into the hierarchy (a resolve, another registration,
///   a reset), so that it always sees its own registrations;
/// - another thread makes a call into the hierarchy after the registering code has let go of the entry
///   (the statement that registered it has ended), which ``holder`` tells.
struct PendingRegistration {
    /// The container registered in; it removes its pending registrations when it is deinitialized.
    unowned let container: Container
    /// The identity of `container`, to find its records while it is being deinitialized.
    let containerIdentity: ObjectIdentifier
    /// The entry, for publishing. Unowned: `holder` keeps it alive, and must be its only reference held
    /// here for the uniqueness test to mean "nobody outside the hierarchy holds it" (registration row).
    unowned let entry: any AnyServiceEntry
    /// The entry's one strong reference held here: once it is the only one, the code that registered
    /// the entry has finished configuring it.
    var holder: AnyObject
    let key: ServiceKey
    /// Keys forwarded to the entry (`implements`) before it was published.
    var forwarded: [ServiceKey] = []
    let thread = ThreadIdentity.current

    init(container: Container, entry: any AnyServiceEntry, key: ServiceKey) {
        self.container = container
        self.containerIdentity = ObjectIdentifier(container)
        self.entry = entry
        self.holder = entry
        self.key = key
    }
}

import Foundation

/// What one container hierarchy shares: the recursive lock that every synchronized view, `Lazy` and
/// `Provider` of the hierarchy takes, and the state of the resolution in flight.
final class Hierarchy: @unchecked Sendable {
    // @unchecked: `lock` is thread-safe; `state` is used under `lock` by every synchronized path, and
    // by the one thread an unsynchronized container is confined to otherwise.

    private let lock = NSRecursiveLock()
    let state = ResolutionState()
    /// Set while `verify()` or `dependencyGraph()` explores the hierarchy, under the lock: resolves then
    /// take the slow path, which records what they do and keeps instances in a throwaway sandbox.
    var isInspecting = false

    /// Runs `body` holding the hierarchy's lock, which the same thread may take again inside it.
    func withLock<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

/// The bookkeeping of the resolution in flight in one hierarchy: the entries being created (for
/// cycle detection and error paths), the current object graph, and a cycle found on the way.
///
/// Its cost is proportional to the graph being resolved: a frame per instance being created, a
/// list of the entries holding a `.graph` instance. A cached `.container` resolve never reaches it.
final class ResolutionState {
    struct Frame {
        let entry: any AnyServiceEntry
        let key: ServiceKey
        /// The factory returned and the instance is stored: resolving the entry again finds it.
        var produced = false
        /// The same entry was resolved again while this frame's factory ran.
        var reentered = false
        /// A cycle was found while this frame was in flight: its instance must not be kept.
        var tainted = false
    }

    /// Deeper than this, a chain of resolutions is treated as a cycle even where the cycle check let
    /// it through (a factory that resolves differently each time), so the stack never overflows.
    static let maximumDepth = 256

    private(set) var frames: [Frame] = []
    /// Top-level calls and nested calls in flight; the graph ends when it drops back to zero.
    private(set) var calls = 0
    /// The serial number of the current graph; an entry's graph instance is valid while it matches.
    private(set) var epoch: UInt64 = 0
    /// The record of the current graph, made when something needs the graph's identity.
    private var liveRecord: GraphRecord?
    /// A graph being resolved again (`Lazy`, `withObjectGraph`): its instances come from its record.
    private var restored: GraphRecord?
    /// Entries that hold an instance of the current graph, or whose custom storage was used in it.
    private var touched: [any AnyServiceEntry] = []
    /// The first cycle found while serving the current top-level call; it fails the whole call.
    private var failure: DIError?
    /// What `verify()` and `dependencyGraph()` collect while they explore; `nil` otherwise.
    var inspection: Inspection?

    #if DEBUG
    private var owner = ThreadIdentity.current
    #endif

    // MARK: - Calls and graphs

    /// Runs `body` as one call: the first call in flight opens a graph and the last one closes it.
    /// A cycle found anywhere during the top-level call fails it, whatever `body` returned.
    func withCall<T>(_ body: () throws(DIError) -> T) throws(DIError) -> T {
        enterCall()
        let result: T
        do {
            result = try body()
        } catch {
            let failure = leaveCall()
            throw failure ?? error
        }
        if let failure = leaveCall() {
            throw failure
        }
        return result
    }

    func enterCall() {
        if calls == 0 {
            epoch &+= 1
            failure = nil
            #if DEBUG
            owner = ThreadIdentity.current
            #endif
        } else {
            #if DEBUG
            if !owner.isCurrent {
                preconditionFailure(
                    """
                    Keystone: a Container was entered by a second thread while a resolve was in flight on another. \
                    A Container is not thread-safe by itself. Fix: call container.synchronize() once, after all \
                    registrations, and resolve from every thread through the SynchronizedResolver it returns.
                    """
                )
            }
            #endif
        }
        calls += 1
    }

    /// Leaves a call; when it was the top-level one, closes the graph and returns the failure to report.
    func leaveCall() -> DIError? {
        calls -= 1
        guard calls == 0 else { return nil }
        for entry in touched {
            entry.completeGraph(remembering: liveRecord)
        }
        touched.removeAll(keepingCapacity: true)
        liveRecord = nil
        defer { failure = nil }
        return failure
    }

    /// The identity of the graph being resolved, or `nil` outside a resolve.
    func currentGraph() -> GraphIdentifier? {
        guard calls > 0 else { return nil }
        if let restored {
            return GraphIdentifier(record: restored)
        }
        if let liveRecord {
            return GraphIdentifier(record: liveRecord)
        }
        let record = GraphRecord()
        liveRecord = record
        return GraphIdentifier(record: record)
    }

    /// What ``enterGraph(_:)`` changed, for ``leaveGraph(_:)`` to undo.
    struct GraphScope {
        fileprivate let record: GraphRecord?
        fileprivate let saved: GraphRecord?
    }

    /// Enters a call inside `graph`: `.graph` instances come from, and go to, that graph's record.
    /// With `nil`, or the graph already being resolved, it is an ordinary call in the current graph.
    func enterGraph(_ graph: GraphIdentifier?) -> GraphScope {
        let saved = restored
        guard let record = graph?.record, record !== restored, calls == 0 || record !== liveRecord else {
            enterCall()
            return GraphScope(record: nil, saved: saved)
        }
        restored = record
        enterCall()
        return GraphScope(record: record, saved: saved)
    }

    /// Leaves a call entered with ``enterGraph(_:)``; returns the failure to report, as ``leaveCall()``.
    func leaveGraph(_ scope: GraphScope) -> DIError? {
        let failure = leaveCall()
        if let record = scope.record {
            restored = scope.saved
            record.weakenAll()
        }
        return failure
    }

    /// Runs `body` as one call inside `graph` (see ``enterGraph(_:)``).
    func withGraph<T>(_ graph: GraphIdentifier?, _ body: () throws(DIError) -> T) throws(DIError) -> T {
        let scope = enterGraph(graph)
        let result: T
        do {
            result = try body()
        } catch {
            throw leaveGraph(scope) ?? error
        }
        if let failure = leaveGraph(scope) {
            throw failure
        }
        return result
    }

    // MARK: - Resolving an entry

    /// Resolves `entry`, found under `key`: reuses the instance its scope holds, or creates one.
    func resolve<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver
    ) throws(DIError) -> Service {
        if let existing = existingInstance(of: entry) {
            return existing
        }
        return try create(entry, as: key, arguments: arguments, resolver: resolver, keep: true)
    }

    /// Creates a new instance of `entry` whatever its scope holds, and does not keep it: what a front
    /// offers as a "unique" resolve. Its dependencies are resolved as usual.
    func resolveNew<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver
    ) throws(DIError) -> Service {
        try create(entry, as: key, arguments: arguments, resolver: resolver, keep: false)
    }

    /// Runs the factory and the `initCompleted` actions of `entry` in a frame of their own; stores the
    /// instance in its scope if `keep`.
    private func create<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver,
        keep: Bool
    ) throws(DIError) -> Service {
        let index = try push(entry, as: key)
        let made: Service
        do {
            made = try entry.make(resolver, arguments)
        } catch {
            let failure = wrap(error, key: key)
            pop()
            throw failure
        }
        if keep {
            if frames[index].reentered, let existing = existingInstance(of: entry) {
                // The factory resolved this entry again, and that inner resolve stored its instance first.
                pop()
                return existing
            }
            store(made, in: entry, tainted: frames[index].tainted)
            frames[index].produced = true
        }
        for action in entry.initCompletedActions {
            do {
                try action(resolver, made)
            } catch {
                let failure = wrap(error, key: key)
                if keep {
                    entry.discardInstance()
                }
                pop()
                throw failure
            }
        }
        if keep, frames[index].tainted {
            // A cycle was found while `initCompleted` ran: the stored instance is incomplete.
            entry.discardInstance()
        }
        pop()
        return made
    }

    private func existingInstance<Service>(of entry: ServiceEntry<Service>) -> Service? {
        if let inspection, entry.kind != .transient, entry.kind != .graph {
            // Inspecting: the real cached instances are neither read nor replaced.
            return inspection.sandbox[ObjectIdentifier(entry)] as? Service ?? graphInstance(of: entry)
        }
        switch entry.kind {
        case .transient:
            return nil
        case .container:
            return entry.instance
        case .graph:
            return graphInstance(of: entry)
        case .weak:
            if let object = entry.weakObject, let instance = object as? Service {
                return instance
            }
            return graphInstance(of: entry)
        case .custom:
            guard let graph = currentGraph() else { return nil }
            return entry.customStorage().instance(inGraph: graph) as? Service
        }
    }

    private func graphInstance<Service>(of entry: ServiceEntry<Service>) -> Service? {
        if let restored {
            return restored.instance(for: ObjectIdentifier(entry)) as? Service
        }
        return entry.graphEpoch == epoch ? entry.graphInstance : nil
    }

    private func store<Service>(_ instance: Service, in entry: ServiceEntry<Service>, tainted: Bool) {
        if let inspection, entry.kind != .transient, entry.kind != .graph {
            if !tainted {
                inspection.sandbox[ObjectIdentifier(entry)] = instance
            }
            storeInGraph(instance, in: entry)
            return
        }
        switch entry.kind {
        case .transient:
            return
        case .container:
            if !tainted, entry.sharesValues || type(of: instance as Any) is AnyClass {
                entry.instance = instance
            }
        case .graph:
            storeInGraph(instance, in: entry)
        case .weak:
            if !tainted {
                entry.weakObject = WeakStorage.referenceIfClass(instance)
            }
            storeInGraph(instance, in: entry)
        case .custom:
            if !tainted, let graph = currentGraph() {
                entry.customStorage().setInstance(instance, inGraph: graph)
                touched.append(entry)
            }
        }
    }

    private func storeInGraph<Service>(_ instance: Service, in entry: ServiceEntry<Service>) {
        if let restored {
            restored.store(instance, for: ObjectIdentifier(entry))
            return
        }
        if frames.count == 1, entry.initCompletedActions.isEmpty, liveRecord == nil {
            // The top-level instance, with nothing left to run in its graph and no one holding the
            // graph's identity: no later lookup can ask for it.
            return
        }
        entry.graphInstance = instance
        entry.graphEpoch = epoch
        touched.append(entry)
    }

    // MARK: - Frames and cycles

    private func push(_ entry: any AnyServiceEntry, as key: ServiceKey) throws(DIError) -> Int {
        if entry.activeFrames > 0, let previous = frames.lastIndex(where: { $0.entry === entry }) {
            // Resolving again an entry whose factory is still running. That ends only if some entry
            // created in between is found instead of created anew on the way back here: one whose
            // instance is stored (its `initCompleted` is what led here) and reused in the graph.
            let broken = frames[(previous + 1)...].contains { $0.produced && $0.entry.reusesInstanceInGraph }
            guard broken else {
                throw recordCycle(frames[previous...].map(\.key) + [key])
            }
            frames[previous].reentered = true
        }
        guard frames.count < Self.maximumDepth else {
            let first = frames.firstIndex { $0.entry === entry } ?? 0
            throw recordCycle(frames[first...].map(\.key) + [key])
        }
        entry.activeFrames += 1
        frames.append(Frame(entry: entry, key: key))
        return frames.count - 1
    }

    private func pop() {
        let frame = frames.removeLast()
        frame.entry.activeFrames -= 1
    }

    private func recordCycle(_ path: [ServiceKey]) -> DIError {
        let error = DIError.circularDependency(path: path)
        inspection?.note(error)
        if failure == nil {
            failure = error
        }
        for index in frames.indices {
            frames[index].tainted = true
        }
        return error
    }

    /// Records, while inspecting, that the resolution on top of the stack asked for `key`, found with
    /// `scope` (`nil` when nothing is registered under it).
    func noteRequest(_ key: ServiceKey, scope: String?) {
        inspection?.noteEdge(from: frames.last?.key, to: key, scope: scope)
    }

    /// The keys in flight, outermost first: the path that led to a resolve made now.
    var path: [ServiceKey] {
        frames.map(\.key)
    }

    /// The error a failed factory or action reports: a `DIError` from a nested resolve as it is,
    /// anything else as `factoryFailed` with the path in flight before `key` (whose frame is on top).
    private func wrap(_ error: any Error, key: ServiceKey) -> DIError {
        if let error = error as? DIError {
            return error
        }
        let failure = DIError.factoryFailed(key: key, path: Array(path.dropLast()), underlying: error)
        inspection?.note(failure)
        return failure
    }
}

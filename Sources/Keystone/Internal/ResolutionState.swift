/// The bookkeeping of the resolution in flight in one hierarchy: the entries being created (for
/// cycle detection and error paths), the current object graph, and a cycle found on the way.
///
/// Its cost is proportional to the graph being resolved: a frame per instance being created, a
/// list of the entries holding a `.graph` instance. A cached `.container` resolve never reaches it.
///
/// The generic part of the resolve path (reading and storing a typed instance, calling the factory)
/// is in `ResolutionState+Resolve.swift`, `@inlinable` so that it specializes in the caller's module;
/// the bookkeeping here is not generic and is called, not inlined.
@usableFromInline
final class ResolutionState {
    @usableFromInline
    struct Frame {
        /// Unowned: an entry is kept alive while a resolution is in flight by the table or, if it was
        /// replaced or removed meanwhile, by `retired`. Pushing a frame then costs no reference counting.
        @usableFromInline unowned(unsafe) let entry: any AnyServiceEntry
        @usableFromInline let key: ServiceKey
        /// The factory returned and the instance is stored: resolving the entry again finds it.
        @usableFromInline var produced = false
        /// The same entry was resolved again while this frame's factory ran.
        @usableFromInline var reentered = false
        /// A cycle was found while this frame was in flight: its instance must not be kept.
        @usableFromInline var tainted = false

        init(entry: any AnyServiceEntry, key: ServiceKey) {
            self.entry = entry
            self.key = key
        }
    }

    /// Deeper than this, a chain of resolutions is treated as a cycle even where the cycle check let
    /// it through (a factory that resolves differently each time), so the stack never overflows.
    static let maximumDepth = 256

    // The engine's own discipline (one thread at a time, no overlapping accesses within a resolve)
    // makes dynamic exclusivity checks on these fields pure cost; they are off.
    @exclusivity(unchecked) @usableFromInline var frames: [Frame] = []
    /// Top-level calls and nested calls in flight; the graph ends when it drops back to zero.
    @exclusivity(unchecked) private(set) var calls = 0
    /// The serial number of the current graph; an entry's graph instance is valid while it matches.
    @exclusivity(unchecked) @usableFromInline var epoch: UInt64 = 0
    /// The record of the current graph, made when something needs the graph's identity.
    @exclusivity(unchecked) @usableFromInline var liveRecord: GraphRecord?
    /// A graph being resolved again (`Lazy`, `withObjectGraph`): its instances come from its record.
    @exclusivity(unchecked) @usableFromInline var restored: GraphRecord?
    /// Entries that hold an instance of the current graph, or whose custom storage was used in it.
    @exclusivity(unchecked) private var touched: [any AnyServiceEntry] = []
    /// Entries replaced or removed while a resolution was in flight (a factory that registers), kept
    /// alive until the top-level call ends: frames and the resolve path refer to entries unretained.
    @exclusivity(unchecked) private var retired: [any AnyServiceEntry] = []
    /// The first cycle found while serving the current top-level call; it fails the whole call.
    @exclusivity(unchecked) private var failure: DIError?
    /// What `verify()` and `dependencyGraph()` collect while they explore; `nil` otherwise.
    @exclusivity(unchecked) @usableFromInline var inspection: Inspection?

    #if DEBUG
    private var owner = ThreadIdentity.current
    #endif

    init() {}

    // MARK: - Calls and graphs

    /// Enters a call: the first call in flight opens a graph.
    @usableFromInline
    func enterCall() {
        if calls == 0 {
            epoch &+= 1
            // `failure` is nil here: the top-level call that set it took it in `leaveCall`.
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

    /// Leaves a call; when it was the top-level one, closes the graph and returns the failure to report
    /// (a cycle found anywhere during the call fails it, whatever it returned).
    @usableFromInline
    func leaveCall() -> DIError? {
        calls -= 1
        guard calls == 0 else { return nil }
        if !touched.isEmpty {
            for entry in touched {
                entry.completeGraph(remembering: liveRecord)
            }
            touched.removeAll(keepingCapacity: true)
        }
        if liveRecord != nil {
            liveRecord = nil
        }
        if !retired.isEmpty {
            retired.removeAll()
        }
        guard let failure else { return nil }
        self.failure = nil
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

    /// Keeps `entry`, just replaced or removed from a table, alive until the top-level call in flight
    /// ends, if there is one.
    func retire(_ entry: any AnyServiceEntry) {
        if calls > 0 {
            retired.append(entry)
        }
    }

    /// Remembers that `entry` holds an instance of the current graph, to drop it when the graph ends.
    @usableFromInline
    func touch(_ entry: any AnyServiceEntry) {
        touched.append(entry)
    }

    // MARK: - Frames and cycles

    /// Pushes the frame of a resolution about to create an instance of `entry`, found under `key`, and
    /// returns its index; throws the cycle if creating it cannot end.
    ///
    /// `reentering` says whether a frame of `entry` is already on the stack (its `activeFrames`, which the
    /// caller keeps). The caller pops the frame with ``pop()`` or ``abandon(_:key:)``.
    @usableFromInline
    func push(_ entry: any AnyServiceEntry, as key: ServiceKey, reentering: Bool) throws(DIError) -> Int {
        if reentering, let previous = frames.lastIndex(where: { $0.entry === entry }) {
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
        frames.append(Frame(entry: entry, key: key))
        return frames.count - 1
    }

    /// Pops the frame on top.
    @usableFromInline
    func pop() {
        frames.removeLast()
    }

    /// Pops the frame on top after its factory or action threw `error`, and returns what to report: a
    /// `DIError` from a nested resolve as it is, anything else as `factoryFailed` with the path that led
    /// to `key` (whose frame is the one on top).
    @usableFromInline
    func abandon(_ error: any Error, key: ServiceKey) -> DIError {
        let failure: DIError
        if let error = error as? DIError {
            failure = error
        } else {
            failure = .factoryFailed(key: key, path: frames.dropLast().map(\.key), underlying: error)
            inspection?.note(failure)
        }
        pop()
        return failure
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
}

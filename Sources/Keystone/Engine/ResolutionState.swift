/// The bookkeeping of the resolution in flight in one hierarchy: the entries being created (for
/// cycle detection and error paths), the current object graph, and a failure found on the way.
///
/// Its cost is proportional to the graph being resolved: a frame per instance being created, a
/// list of the entries holding a `.graph` instance. A cached `.container` resolve never reaches it.
///
/// The generic part of the resolve path (reading and storing a typed instance, calling the factory)
/// is in `Resolve.swift`, `@inlinable` so that it specializes in the caller's module;
/// what stays here (graphs, cycles, depth, the debug check) is not generic and is called, not inlined.
@usableFromInline
final class ResolutionState {
    @usableFromInline
    struct Frame {
        /// Unowned: while a call is in flight, an entry is kept alive by its container's table or, once
        /// replaced or removed (a factory that registers), by `retired` until the top-level call ends.
        /// Pushing a frame then costs no reference counting: a strong reference costs 4% more instructions
        /// on rows `graph` and `transient`, `unowned` 8%.
        @usableFromInline unowned(unsafe) let entry: any AnyServiceEntry
        @usableFromInline let key: ServiceKey
        /// The arguments the factory is called with (a pointer to the caller's `Arguments`), valid while
        /// the frame is on the stack: two frames of one entry compare them to tell recursion from a cycle.
        @usableFromInline let arguments: UnsafeRawPointer
        /// A front's `.unique` resolve: the instance is created for the caller and not kept.
        @usableFromInline let isUnique: Bool
        /// The factory returned (and, unless unique, the instance is stored: resolving the entry again
        /// finds it).
        @usableFromInline var produced = false
        /// The same entry was resolved again, with the same arguments, while this frame's factory ran.
        @usableFromInline var reentered = false
        /// A cycle was found while this frame was in flight: its instance must not be kept.
        @usableFromInline var tainted = false
        /// The entry's instances were dropped (reset, re-registration, removal, disposal, a scope change)
        /// while this frame was on the stack. Before its factory returned: the instance is not kept (unless
        /// for its actions, ``holdsDroppedInstance``), and is disposed once it completes
        /// (``disposesIfDropped``). After, where the drop took the instance (`.container`, `.multiton`, a
        /// custom scope on a discarding drop; see `noteDropped`): the dropping call ends it. Either way the
        /// creation leaves alone whatever its scope holds besides an instance it still holds there.
        @usableFromInline var dropped = false
        /// A dropped creation's instance gets its synchronous disposal handlers when it completes: a call
        /// that disposes of instances (`dispose()`, a reset, a re-registration or removal) dropped it
        /// from a scope that disposes of its instances (`.container` or `.multiton`) and left it to the
        /// creation to end (for an async creation: took its flight, ``SingleFlight/isTakenForDisposal``).
        /// Not the scope when it completes: a scope changed meanwhile does not cancel that. A scope change
        /// alone (`inObjectScope`) drops instances without disposing of them, held or in flight.
        @usableFromInline var disposesIfDropped = false
        /// The instance of a dropped creation is in its scope for the `initCompleted` actions (it took the
        /// scope's place, left empty by the drop): a call that disposes of instances and drops the
        /// entry's again takes it, and ends it; the creation then leaves it alone.
        @usableFromInline var holdsDroppedInstance = false
        /// The registration's scope changed while this frame was on the stack (`inObjectScope`): the scope
        /// its instance was made for is gone, and the instance is kept nowhere (``Frame/dropped`` is set
        /// too). Not a disposing drop: ``disposesIfDropped`` stays as an earlier drop left it.
        @usableFromInline var keepsNothing = false

        @usableFromInline
        init(entry: any AnyServiceEntry, key: ServiceKey, arguments: UnsafeRawPointer, isUnique: Bool) {
            self.entry = entry
            self.key = key
            self.arguments = arguments
            self.isUnique = isUnique
        }
    }

    /// How many resolutions may be nested in one call, as in Swinject. Deeper, or with the thread's stack
    /// nearly used up (``StackSpace``), a resolve fails with ``DIError/depthLimitExceeded(path:limit:)``:
    /// a chain that deep is a runaway recursion (a factory that resolves its own registration with ever
    /// new arguments), and the stack must never overflow.
    static let maximumDepth = 200

    /// From this depth on, the engine also checks the stack left, every few levels.
    static let stackCheckDepth = 16

    // Exclusivity unchecked (here, on `call`, and on the stack's own fields): the engine's own discipline
    // (one thread at a time, no overlapping accesses within a resolve) makes dynamic exclusivity checks pure
    // cost. Measured by removing it, in instructions per operation of the gate's rows
    // (Benchmarks/InstructionCounts): the frames +53% on `graph` and +47% on `transient` (as an array);
    // the call's graph fields (`call`) about +14% each on both. `calls` and `failure` won under 1% and are
    // checked.
    /// The creations in flight, innermost last.
    @usableFromInline let frames = FrameStack()
    /// Top-level calls and nested calls in flight; the graph ends when it drops back to zero.
    var calls = 0

    /// Whether the call in flight is the only one: a top-level resolve, not an element of `resolveAll`
    /// (which resolves each in a call nested in its own). Not inlined: the inlined resolve path reading
    /// `calls` would make its exclusivity checks dynamic everywhere (rows `transient` +15%, `graph` +22%).
    @usableFromInline var isSoleCall: Bool { calls == 1 }
    /// The object graph of the top-level call in flight, and the path it serves: one value behind one
    /// unchecked field, changed in place.
    @exclusivity(unchecked) @usableFromInline var call = CallState()

    /// What the engine keeps about the top-level call in flight: its object graph, the asynchronous
    /// resolution it serves, if any, and the profile being recorded.
    @usableFromInline
    struct CallState {
        /// The serial number of the current graph; an entry's graph instance is valid while it matches.
        @usableFromInline var epoch: UInt64 = 0
        /// The record of the current graph, made when something needs the graph's identity.
        @usableFromInline var liveRecord: GraphRecord?
        /// A graph being resolved again (`Lazy`, `withObjectGraph`): its instances come from its record.
        @usableFromInline var restored: GraphRecord?
        /// Entries that hold an instance of the current graph, or whose custom storage was used in it.
        @usableFromInline var touched: [TouchedEntry] = []
        /// Entries replaced or removed while a resolution was in flight (a factory that registers), kept
        /// alive until the top-level call ends: frames and the resolve path refer to entries unretained.
        var retired: [any AnyServiceEntry] = []
        /// The keys of the asynchronous resolution the call serves, outermost first; empty outside one.
        /// They begin the path of every error the call reports, and count toward the depth limit.
        var outer: [ServiceKey] = []
        /// `outer.count`, which ``ResolutionState/push(_:as:arguments:isUnique:)`` adds to the depth of
        /// the frames.
        @usableFromInline var outerDepth = 0
        /// For each of `outer`, the depth of the container that keeps its instance, if one does.
        var outerHolders: [Int?] = []
        /// The profile being recorded, if any (``Container/profilingCreations(_:)``): read by `create`
        /// before each factory runs, in this unchecked value so that the read costs a load.
        @usableFromInline var profiler: CreationProfiler?
        /// The record of the asynchronous creation the call serves, if one is profiled: the parent of
        /// the creations the call makes at its top.
        var profileParent: Int?
        /// Every profile being recorded, in the order they started; `profiler` is the last.
        var profilers: [CreationProfiler] = []
        /// Set while scopes are validated (``Container/validatesScopes``): the instances kept during the
        /// top-level call are noted in `kept`, so that a call failed by a captive dependency keeps none.
        @usableFromInline var tracksKept = false
        /// The `.container` and `.multiton` instances kept during the top-level call, while `tracksKept`:
        /// each entry, with the arguments of a `.multiton` instance.
        @usableFromInline var kept: [(entry: any AnyServiceEntry, arguments: MultitonKey?)] = []

        @usableFromInline init() {}
    }

    /// ``CallState/epoch``.
    @inlinable var epoch: UInt64 { call.epoch }
    /// ``CallState/liveRecord``.
    @inlinable var liveRecord: GraphRecord? { call.liveRecord }
    /// ``CallState/restored``.
    @inlinable var restored: GraphRecord? { call.restored }
    /// ``CallState/outer``.
    var outer: [ServiceKey] { call.outer }

    /// The first cycle (or runaway depth) found while serving the current top-level call; it fails the
    /// whole call.
    var failure: DIError?
    /// The argument values of the `.multiton` creations in flight, innermost last: where `store` keeps
    /// a new `.multiton` instance, before its `initCompleted` actions run, as `.container` does.
    @usableFromInline var multitonKeys: [MultitonKey] = []
    /// How many `.container` and `.multiton` instances have completed: see ``nextCompletion()``. Unchecked,
    /// as ``InstanceCache/completion`` is.
    @exclusivity(unchecked) @usableFromInline var completions: UInt64 = 0
    /// What `verify()` and `dependencyGraph()` collect while they explore; `nil` otherwise. Read only
    /// where a resolve fails or is observed, never on the inlined path.
    var inspection: Inspection?
    /// The service type of the last miss that was no wrapper (`Lazy`, `Provider`, `Optional`): a failed
    /// resolve repeated for one type asks the runtime for the conformance once (`failed` row: the
    /// conformance lookup was a quarter of its instructions). Type metadata is never freed, so an
    /// identifier never comes to mean another type.
    var lastUnwrappedMiss: ObjectIdentifier?

    #if DEBUG
        /// The thread running the engine's own code for the call in flight; `nil` outside a call and while
        /// that thread runs a factory or an action, which may hand work to another thread and wait for it.
        var runningThread: ThreadIdentity?
        /// `runningThread` as each call in flight found it, restored when the call ends.
        var runningThreads: [ThreadIdentity?] = []
    #endif

    init() {}

    // MARK: - Calls and graphs

    /// Drops the graph's instances (remembering them weakly in its record, if it has one) and the
    /// entries retired during the call.
    func closeGraph() {
        let record = liveRecord
        call.liveRecord = nil
        var completing: [TouchedEntry] = []
        swap(&completing, &call.touched)
        var retiring: [any AnyServiceEntry] = []
        swap(&retiring, &call.retired)
        // Settled: from here on, deinitializers may run and resolve.
        for touched in completing {
            touched.complete(touched.entry, record)
        }
        if call.touched.isEmpty {
            // Keep the buffer for the next graph.
            completing.removeAll(keepingCapacity: true)
            swap(&completing, &call.touched)
        }
        retiring.removeAll()
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
        call.liveRecord = record
        return GraphIdentifier(record: record)
    }

    /// Runs `body` with `graph` as the graph its resolves read `.graph` instances from and add them to:
    /// every resolve inside is a call of its own, which reports its own failures. With `nil`, or the graph
    /// already being resolved, `body` runs as it is.
    func inGraph<T, Failure: Error>(
        _ identifier: GraphIdentifier?,
        _ body: () throws(Failure) -> T
    ) throws(Failure) -> T {
        guard let record = identifier?.record, record !== restored, calls == 0 || record !== liveRecord else {
            return try body()
        }
        let saved = restored
        call.restored = record
        defer {
            call.restored = saved
            record.weakenAll()
        }
        return try body()
    }

    /// Runs `body` with `keys`, the path of the asynchronous resolution it serves, ahead of the frames
    /// (``CallState/outer``), and `record`, the profiled creation it serves, as the parent of its
    /// creations, unless a call is already in flight, which already has them.
    func afterPath<T, Failure: Error>(
        _ keys: [ServiceKey],
        holders: [Int?],
        inCreation record: Int?,
        _ body: () throws(Failure) -> T
    ) throws(Failure) -> T {
        guard calls == 0 else { return try body() }
        let saved = (call.outer, call.outerHolders, call.profileParent)
        call.outer = keys
        call.outerDepth = keys.count
        call.outerHolders = holders
        call.profileParent = record
        defer {
            call.outer = saved.0
            call.outerDepth = saved.0.count
            call.outerHolders = saved.1
            call.profileParent = saved.2
        }
        return try body()
    }

    /// Runs `body` as one call inside `graph` (see ``inGraph(_:_:)``), for `Lazy` and `Provider`.
    func withGraph<T>(_ graph: GraphIdentifier?, _ body: () throws(DIError) -> T) throws(DIError) -> T {
        try inGraph(graph) { () throws(DIError) -> T in
            try withCall(body)
        }
    }

    /// The next number in the hierarchy's order of completed `.container` and `.multiton` instances, which
    /// `dispose()` follows backwards.
    @usableFromInline
    func nextCompletion() -> UInt64 {
        completions &+= 1
        return completions
    }

    /// Keeps `entry`, just replaced or removed from a table, alive until the top-level call in flight
    /// ends, if there is one.
    func retire(_ entry: any AnyServiceEntry) {
        if calls > 0 {
            call.retired.append(entry)
        }
    }

    /// Remembers that `entry` holds an instance of the current graph, to drop it when the graph ends
    /// with `complete`: its ``ServiceEntry/completeGraph(remembering:)``, compiled for its service type
    /// where the caller knows it, else called through ``AnyServiceEntry``.
    @usableFromInline
    func touch(
        _ entry: any AnyServiceEntry,
        completing complete: @escaping TouchedEntry.Completion = { entry, record in
            entry.completeGraph(remembering: record)
        }
    ) {
        call.touched.append(TouchedEntry(entry: entry, complete: complete))
    }

    /// Marks the creations of `entry` whose factory is running as dropped: what they make is not kept
    /// (``Frame/dropped``). An instance already stored (its factory returned) is the dropping call's to
    /// dispose of. Called under the lock by whatever drops an entry's instances; `discarding`: that call
    /// also discards what the scope keeps (`discardInstance`), as `dispose()` does not.
    func noteDropped(_ entry: any AnyServiceEntry, discarding: Bool = true) {
        for index in frames.indices where frames[index].entry === entry && !frames[index].isUnique {
            if !frames[index].produced {
                frames[index].dropped = true
                // A drop from `.container` or `.multiton` is not undone by a later one from a scope that
                // keeps nothing.
                frames[index].disposesIfDropped =
                    frames[index].disposesIfDropped || entry.disposesOfInstances
            } else if entry.disposesOfInstances || (discarding && isCustom(entry)),
                frames[index].holdsDroppedInstance || !frames[index].dropped
            {
                // The dropping call took the instance this creation stored (for its actions), and ends it:
                // the creation no longer has anything in the scope, where a newer creation may come.
                // `.container` and `.multiton` lose their instance to every disposing call, a custom scope
                // only to one that discards instances (`discarding`; `dispose()` leaves it where it is).
                // `.weak` and `.graph` keep theirs in the graph: the creation discards it if an action fails,
                // or takes it back if it was dropped, comparing identities (``takeBack(_:of:)``).
                frames[index].dropped = true
                frames[index].holdsDroppedInstance = false
                frames[index].disposesIfDropped = false
            }
        }
    }

    /// Whether `entry` keeps its instances in a custom scope's storage, which a discarding drop empties.
    private func isCustom(_ entry: any AnyServiceEntry) -> Bool {
        ScopeKind.of(entry.objectScope).kind == .custom
    }

    /// Notes that a scope change dropped the instances of `entry` without disposing of them, held or being
    /// created: the creations on the stack keep nothing, in the old scope or the new one (an instance a
    /// dropped creation stored for its actions is gone, and is still that creation's to end if a disposing
    /// call dropped it first). Called under the lock by `inObjectScope`.
    func noteScopeChanged(_ entry: any AnyServiceEntry) {
        for index in frames.indices where frames[index].entry === entry && !frames[index].isUnique {
            frames[index].dropped = true
            frames[index].keepsNothing = true
            frames[index].holdsDroppedInstance = false
        }
    }

    // MARK: - Failures

    /// Pops the frame on top after its factory or action threw `error`, and returns what to report: a
    /// `DIError` from a nested resolve as it is, anything else as `factoryFailed` with the path that led
    /// to `key` (whose frame is the one on top).
    @usableFromInline
    func abandon(_ error: any Error, key: ServiceKey) -> DIError {
        let failure: DIError
        if let error = error as? DIError {
            failure = error
        } else if let required = error as? IsolationRequired {
            failure = isolationFailure(required, key: key)
        } else {
            failure = .factoryFailed(key: key, path: Array(path.dropLast()), underlying: error)
            inspection?.note(failure)
        }
        pop()
        return failure
    }

    /// The error for a synchronous resolve that reached an async or main-actor factory it cannot run,
    /// with the path that led to `key`: a cycle if the asynchronous resolution it runs in is creating
    /// that registration. While inspecting, it is a problem unless `warmUp()` satisfies it.
    private func isolationFailure(_ required: IsolationRequired, key: ServiceKey) -> DIError {
        if let cycle = required.cycle {
            // An async factory being created by the asynchronous resolution this call runs in: the cycle
            // goes from where it is on that resolution's path, through the frames, back to it.
            return recordFailure(.circularDependency(path: cycle + frames.dropLast().map(\.key) + [key]))
        }
        let path = Array(path.dropLast())
        let failure: DIError =
            switch required.isolation {
            case .async: .asyncResolutionRequired(key: key, path: path)
            case .mainActor: .mainActorRequired(key: key, path: path)
            }
        if let inspection {
            if required.warmUpSatisfies {
                inspection.excuse(failure)
            } else {
                inspection.note(failure)
            }
        }
        return failure
    }

    /// Records a cycle or a runaway depth: it fails the top-level call, and nothing in flight is kept.
    func recordFailure(_ error: DIError) -> DIError {
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

    /// The keys in flight, outermost first: the path that led to a resolve made now, from the
    /// asynchronous resolution this call serves, if any.
    var path: [ServiceKey] {
        outer.isEmpty ? frames.map(\.key) : outer + frames.map(\.key)
    }

    // MARK: - Unsynchronized use (debug builds)

    /// Called before the engine runs a factory or an action: until ``userCodeDidRun()``, another thread
    /// may enter, as long as this one waits for it (a hand-off to a dedicated thread or queue).
    @inlinable
    func userCodeWillRun() {
        #if DEBUG
            setRunningThread(nil)
        #endif
    }

    /// Called when a factory or an action returns to the engine.
    @inlinable
    func userCodeDidRun() {
        #if DEBUG
            checkNoOtherThreadIsRunning()
            setRunningThread(.current)
        #endif
    }

    #if DEBUG
        @usableFromInline
        func setRunningThread(_ thread: ThreadIdentity?) {
            runningThread = thread
        }

        /// Stops the program when another thread is running the engine's code for a call in flight: two
        /// threads are using an unsynchronized container at the same time.
        @usableFromInline
        func checkNoOtherThreadIsRunning() {
            if let running = runningThread, !running.isCurrent {
                fatalError(
                    """
                    Keystone: a Container was entered by a second thread while another thread was resolving from it \
                    or from another container of its hierarchy (its parent, a child, a sibling): the containers of one \
                    hierarchy share their resolution state. A Container is not thread-safe by itself. Fix: call \
                    synchronize() once, after all registrations, and resolve from every thread through the \
                    SynchronizedResolver it returns; a child made per task or request is resolved through \
                    child.synchronize() too.
                    """
                )
            }
        }
    #endif
}

/// An entry holding an instance of the graph being resolved, and how to end its part in the graph.
@usableFromInline
struct TouchedEntry {
    @usableFromInline
    typealias Completion = (any AnyServiceEntry, GraphRecord?) -> Void

    let entry: any AnyServiceEntry
    /// The entry's ``ServiceEntry/completeGraph(remembering:)``; a function with no captures, so that
    /// listing the entry allocates nothing.
    let complete: Completion

    @usableFromInline
    init(entry: any AnyServiceEntry, complete: @escaping Completion) {
        self.entry = entry
        self.complete = complete
    }
}

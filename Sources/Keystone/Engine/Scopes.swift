// Every scope's rules, in one place: how an instance is read (`existingInstance`), kept (`store`),
// dropped (`discardInstance`, `discardIncomplete`) and disposed of (`takeForDisposal`, `disposeDropped`).
//
// - `.transient`: never read, never kept; nothing to drop or dispose of.
// - `.graph`: reads and keeps class instances for the rest of the object graph (`graphInstance` while
//   `graphEpoch` is the graph's, or a restored graph's record); dropped from the graph; never disposed.
// - `.container`: reads and keeps `instance` (a value type only where `sharesValues`), unless the creation
//   was tainted by a cycle or dropped; dropping clears it and changes the generation; disposed of.
// - `.multiton`: `.container` per argument values: `byArguments[MultitonKey]`, kept under the arguments of
//   the creation in flight (`multitonKeys`); dropped all at once, or only the incomplete one; disposed of.
// - `.weak`: reads the weak object, else the graph's instance; keeps both; drops the weak object.
// - custom: the storage's `instance(inGraph:)` and `setInstance(_:inGraph:)`; dropped with `instance = nil`.
//
// `.container` and `.multiton` instances are numbered when they complete (`numberCompletion`), and
// `dispose()` follows the numbers backwards. A creation whose scope was dropped while it ran keeps
// nothing; if a call that disposes of instances dropped it from `.container` or `.multiton` (for an async
// creation: took its flight), it is disposed of when it completes, unless a disposing call takes it from
// the scope where it waits for its `initCompleted` actions (`Frame.holdsDroppedInstance`): that call ends
// it. A drop once the factory has returned takes the instance it stored, and the dropping call ends it. A
// dropped creation takes back or discards (its action failed) only an instance it still holds there: the
// scope may hold a newer creation's. A scope change alone (`inObjectScope`) drops instances, held or in
// flight, without disposing of them; a creation on the stack when its scope changes keeps its instance in
// neither scope (`Frame.keepsNothing`). An async creation is on no frame while its factory runs: it ends in
// the scope its registration has then (`adopt`).
//
// A new built-in scope is a case of `ScopeKind` and a line in each `switch` of this file; a custom scope
// is an `InstanceStorage`.

/// How a registration keeps its instances; `custom` defers to an ``InstanceStorage``.
@usableFromInline
enum ScopeKind: UInt8, Sendable {
    case transient
    case graph
    case container
    case weak
    case custom
    /// One instance per distinct arguments, in `InstanceCache.byArguments`.
    case multiton

    /// How `scope` keeps instances, and whether a `.container`-kind scope keeps value types too.
    static func of(_ scope: any ObjectScopeProtocol) -> (kind: ScopeKind, sharesValues: Bool) {
        guard let scope = scope as? ObjectScope else { return (.custom, true) }
        return (scope.kind, scope.sharesValues)
    }
}

extension ResolutionState {
    /// The instance the scope of `entry` holds for the resolution in flight, if any.
    @inlinable
    func existingInstance<Service>(of entry: ServiceEntry<Service>) -> Service? {
        switch entry.kind {
        case .transient:
            return nil
        case .container:
            return entry.instance
        case .graph where restored == nil:
            return entry.graphEpoch == epoch ? entry.graphInstance : nil
        case .graph, .weak, .custom:
            return instanceKeptElsewhere(of: entry)
        case .multiton:
            // Kept by arguments: `resolveMultiton`.
            return nil
        }
    }

    /// Stores a new instance of `entry` in its scope; a tainted one (built around a cycle) only for the
    /// rest of the failing call. `.graph` and `.weak` share class instances only: a value type's factory
    /// runs on every resolve, as in Swinject.
    @inlinable
    func store<Service>(_ instance: Service, in entry: ServiceEntry<Service>, tainted: Bool) {
        switch entry.kind {
        case .transient:
            return
        case .container:
            if !tainted, entry.sharesValues || isReference(instance) {
                entry.instance = instance
            }
        case .graph where restored == nil:
            storeInLiveGraph(instance, in: entry)
        case .graph, .weak, .custom:
            storeElsewhere(instance, in: entry, tainted: tainted)
        case .multiton:
            if !tainted {
                storeByArguments(instance, in: entry)
            }
        }
    }

    /// Keeps a new `.multiton` instance under the argument values of the creation in flight
    /// (``multitonKeys``); its completion number comes when it completes (`resolveMultiton`).
    @usableFromInline
    func storeByArguments<Service>(_ instance: Service, in entry: ServiceEntry<Service>) {
        if entry.cache == nil {
            entry.cache = InstanceCache()
        }
        entry.cache?.byArguments[multitonKeys[multitonKeys.count - 1]] = (instance, 0)
    }

    /// Whether `instance` is a class instance, which a graph may share.
    @inlinable
    func isReference<Service>(_ instance: Service) -> Bool {
        Service.self is AnyObject.Type || type(of: instance as Any) is AnyClass
    }

    /// Keeps a class instance for the rest of the graph; values are not shared.
    @inlinable
    func storeInLiveGraph<Service>(_ instance: Service, in entry: ServiceEntry<Service>) {
        if frames.count == 1, !entry.hasInitCompletedActions, liveRecord == nil, isSoleCall {
            // The instance of a top-level resolve, with nothing left to run in its graph and no one
            // holding the graph's identity: no later lookup can ask for it. Not an element of
            // `resolveAll` (a call around the element's): a later element may ask for it.
            return
        }
        guard isReference(instance) else { return }
        entry.graphInstance = instance
        entry.graphEpoch = call.epoch
        touch(entry, completing: entry.completesGraph)
    }

    /// ``existingInstance(of:)`` for the scopes that keep instances outside the entry's cache: a restored
    /// graph's record, a weak reference, a custom storage.
    @usableFromInline
    func instanceKeptElsewhere<Service>(of entry: ServiceEntry<Service>) -> Service? {
        switch entry.kind {
        case .transient, .container, .multiton:
            return existingInstance(of: entry)
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

    /// ``store(_:in:tainted:)`` for the scopes that keep instances outside the entry's cache.
    @usableFromInline
    func storeElsewhere<Service>(_ instance: Service, in entry: ServiceEntry<Service>, tainted: Bool) {
        switch entry.kind {
        case .transient, .container, .multiton:
            store(instance, in: entry, tainted: tainted)
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
                touch(entry)
            }
        }
    }

    private func graphInstance<Service>(of entry: ServiceEntry<Service>) -> Service? {
        if let restored {
            return restored.instance(for: entry.graphRecordKey) as? Service
        }
        return entry.graphEpoch == epoch ? entry.graphInstance : nil
    }

    /// Keeps a class instance in the graph being resolved; values are not shared.
    private func storeInGraph<Service>(_ instance: Service, in entry: ServiceEntry<Service>) {
        guard let restored else {
            storeInLiveGraph(instance, in: entry)
            return
        }
        if isReference(instance) {
            restored.store(instance, for: entry.graphRecordKey)
        }
    }

    /// Whether the scope of `entry` holds no instance now (for `.multiton`, for the arguments in flight).
    @usableFromInline
    func isEmpty<Service>(_ entry: ServiceEntry<Service>) -> Bool {
        switch entry.kind {
        case .multiton:
            entry.instance(forArguments: multitonKeys[multitonKeys.count - 1]) == nil
        case .transient, .graph, .container, .weak, .custom:
            existingInstance(of: entry) == nil
        }
    }

    /// Takes back from the scope of `entry` the instance `made`, kept only so that its `initCompleted`
    /// actions could find it: the scope was dropped while its factory ran. Called only while the creation
    /// still holds it there (``ResolutionState/Frame/holdsDroppedInstance``); whatever else the scope holds
    /// is left alone all the same.
    @usableFromInline
    func takeBack<Service>(_ made: Service, of entry: ServiceEntry<Service>) {
        switch entry.kind {
        case .container:
            if let kept = entry.instance, isSame(kept, made) {
                entry.instance = nil
            }
        case .multiton:
            guard let identity = multitonKeys.last else { return }
            if let kept = entry.instance(forArguments: identity), isSame(kept, made) {
                entry.cache?.dropInstance(forArguments: identity)
            }
        case .weak:
            if let kept = entry.weakObject as? Service, isSame(kept, made) {
                entry.weakObject = nil
            }
        case .custom:
            if let graph = currentGraph(), let kept = entry.customStorage().instance(inGraph: graph) as? Service,
                isSame(kept, made)
            {
                entry.customStorage().setInstance(nil, inGraph: graph)
            }
        case .transient, .graph:
            break
        }
    }

    /// Whether `kept` is `made`: the same object, or, for a value, whatever is kept (values have no
    /// identity to tell them apart).
    private func isSame<Service>(_ kept: Service, _ made: Service) -> Bool {
        guard isReference(made) else { return true }
        return (kept as AnyObject) === (made as AnyObject)
    }

    /// Numbers a kept instance of `entry` that has just completed, for `dispose()`: `.container` and
    /// `.multiton` (the instance of the arguments in flight, ``multitonKeys``).
    @inlinable
    func numberCompletion<Service>(of entry: ServiceEntry<Service>) {
        switch entry.kind {
        case .container:
            entry.cache?.completion = nextCompletion()
            if call.tracksKept {
                call.kept.append((entry, nil))
            }
        case .multiton:
            numberMultitonCompletion(of: entry)
        case .transient, .graph, .weak, .custom:
            break
        }
    }

    /// ``numberCompletion(of:)`` for a `.multiton` entry. Not inlined: the change of a dictionary entry,
    /// specialized for each service type, would add some 260 bytes to every registration's compiled
    /// resolve in an app (`Benchmarks/size.sh`).
    @usableFromInline
    func numberMultitonCompletion<Service>(of entry: ServiceEntry<Service>) {
        let identity = multitonKeys[multitonKeys.count - 1]
        entry.cache?.byArguments[identity]?.completion = nextCompletion()
        if call.tracksKept {
            call.kept.append((entry, identity))
        }
    }

    /// Forgets the instance `made` that `entry` has just stored, in its scope and in the current graph.
    /// A `.weak` scope's object is forgotten only if it is `made`: a drop during the creation's actions may
    /// have let another creation put a newer one there.
    @usableFromInline
    func discardIncomplete<Service>(_ made: Service, of entry: ServiceEntry<Service>) {
        if let restored {
            restored.forget(entry.graphRecordKey)
        } else if entry.graphEpoch == epoch {
            entry.graphInstance = nil
        }
        switch entry.kind {
        case .multiton:
            // Only the instance of these arguments: the others completed.
            entry.cache?.dropInstance(forArguments: multitonKeys[multitonKeys.count - 1])
            return
        case .weak:
            guard let kept = entry.weakObject, isReference(made), kept === (made as AnyObject) else { return }
        case .transient, .graph, .container, .custom:
            break
        }
        entry.discardInstance()
        if entry.kind == .custom, let graph = currentGraph() {
            entry.customStorage().setInstance(nil, inGraph: graph)
        }
    }

    /// Drops the instances kept during a top-level call that a captive dependency failed (noted in
    /// `call.kept` while scopes are validated), and disposes of them: such a call keeps nothing.
    func dropKept() {
        let kept = call.kept
        call.kept.removeAll()
        Disposal.runDropped(kept.flatMap { $0.entry.takeKept(forArguments: $0.arguments) })
    }

    /// Ends the creation of the frame at `index`, on top, whose `instance` is not kept: its scope was dropped
    /// while it was on the stack (``ResolutionState/Frame/dropped``), or a reentering resolve's instance is
    /// kept instead. Pops the frame; takes `instance` back from its scope if it still
    /// waits there, stored for its `initCompleted` actions (``ResolutionState/Frame/holdsDroppedInstance``);
    /// and, if a call that disposes of instances left it to the creation
    /// (``ResolutionState/Frame/disposesIfDropped``), disposes of it.
    @usableFromInline
    func endDropped<Service>(_ instance: Service, of entry: ServiceEntry<Service>, frame index: Int) {
        let kept = frames[index].holdsDroppedInstance
        let disposing = frames[index].disposesIfDropped
        pop()
        if kept {
            takeBack(instance, of: entry)
        }
        if disposing {
            disposeDropped(instance, of: entry)
        }
    }

    /// Ends an instance whose scope was dropped while its factory ran: it was not kept, so nothing else
    /// will run its synchronous disposal handlers. What they throw goes to the log handler.
    @usableFromInline
    func disposeDropped<Service>(_ instance: Service, of entry: ServiceEntry<Service>) {
        guard let handlers = entry.disposalHandlers else { return }
        let failures = handlers.runSync(on: instance, key: entry.key)
        if !failures.isEmpty {
            Log.failure(.disposalFailed(failures))
        }
    }
}

extension ServiceEntry {
    /// The `.multiton` instance kept for the arguments `identity` (``MultitonKey``), if any.
    @inlinable
    func instance(forArguments identity: MultitonKey) -> Service? {
        guard let kept = cache?.byArguments[identity] else { return nil }
        return kept.instance
    }

    /// The custom scope's storage, made on first use.
    func customStorage() -> any InstanceStorage {
        if let storage {
            return storage
        }
        let made = objectScope.makeStorage()
        storage = made
        return made
    }

    @usableFromInline
    var holdsInstance: Bool {
        switch kind {
        case .transient: false
        case .container: instance != nil
        case .weak: weakObject != nil
        case .graph: graphInstance != nil
        case .custom: storage?.instance != nil
        case .multiton: !(cache?.byArguments.isEmpty ?? true)
        }
    }

    @usableFromInline
    var keepsOneInstance: Bool {
        kind == .container
    }

    @usableFromInline
    var keepsOneInstanceWithoutArguments: Bool {
        kind == .container || kind == .multiton
    }

    @usableFromInline
    var disposesOfInstances: Bool {
        kind == .container || kind == .multiton
    }

    @usableFromInline
    var reusesInstanceInGraph: Bool {
        kind != .transient
    }

    @usableFromInline
    func discardInstance() {
        // Only what exists is touched: an entry without instances (`inObjectScope` on a new registration)
        // then costs no generic metadata lookup for `Service?` (`app-launch` row: 16% of its instructions
        // went to these lookups).
        if let cache {
            // A creation in flight started at another generation does not keep its instance.
            cache.generation &+= 1
            cache.dropInstance()
            if kind == .multiton, !cache.byArguments.isEmpty {
                cache.dropInstancesByArguments()
            }
        }
        weakObject = nil
        if kind == .custom {
            // A custom storage may hold an instance it was given directly, before any resolve.
            customStorage().instance = nil
        }
    }

    @usableFromInline
    func takeKept(forArguments identity: MultitonKey?) -> [Disposal] {
        let taken: (instance: Any, completion: UInt64)?
        if let identity {
            taken = cache?.takeInstance(forArguments: identity)
        } else {
            taken = kind == .container ? cache?.takeInstance() : nil
        }
        guard let taken else { return [] }
        return [Disposal(key: key, completion: taken.completion, instance: taken.instance, handlers: disposalHandlers)]
    }

    @usableFromInline
    func takeForDisposal(into disposals: inout [Disposal]) {
        let flights = owner?.hierarchy.flights
        // Most entries of a request scope are neither `.container` nor `.multiton`, and hold nothing to
        // dispose of: they cost no allocation and no generic metadata lookup (`request-scope` row).
        if !disposesOfInstances, flights?.isEmpty ?? true {
            cache?.generation &+= 1
            return
        }
        takeKeptForDisposal(flights: flights, into: &disposals)
    }

    /// ``takeForDisposal(into:)`` for an entry that may keep instances.
    @inline(never)
    private func takeKeptForDisposal(flights: [FlightKey: SingleFlight]?, into disposals: inout [Disposal]) {
        let handlers = disposalHandlers
        // The creations in flight of this entry (async `.container` and `.multiton`): they will not keep
        // their instances (the generation changes below), and are disposed of when they end.
        if let flights, !flights.isEmpty {
            let identity = ObjectIdentifier(self)
            let generation = cache?.generation ?? 0
            for flight in flights.values
            // Only those started since the last drop: an earlier drop took the others already.
            where flight.shared.entry == identity && flight.generation == generation {
                disposals.append(Disposal(awaiting: flight, key: key, handlers: handlers))
            }
        }
        guard let cache else { return }
        // Only a `.multiton` entry keeps instances by arguments (`inObjectScope` drops them before the
        // scope changes).
        let tookInstances = cache.appendDisposals(
            to: &disposals,
            key: key,
            handlers: handlers,
            instance: kind == .container,
            byArguments: kind == .multiton
        )
        if tookInstances {
            discardInstance()
        } else {
            cache.generation &+= 1
        }
    }

    /// Drops the instance of the graph that ends, remembering it in the graph's `record` if it has one.
    @usableFromInline
    func completeGraph(remembering record: GraphRecord?) {
        if let graphInstance {
            record?.remember(graphInstance, for: graphRecordKey)
            self.graphInstance = nil
        }
        if kind == .custom {
            storage?.graphResolutionCompleted()
        }
    }

    /// ``completeGraph(remembering:)`` for an entry of this type, as the graph lists it, compiled for
    /// `Service` where the registration is (``completesGraph``). Compiled generically, clearing
    /// `graphInstance` looks up the metadata of `Optional<Service>` twice (`fan-out` row: 1,386
    /// instructions per graph member, 979 of them in those lookups). Only the common case is inlined, a
    /// graph nobody remembers, so that the code each registration adds stays small.
    @inlinable
    static func completeGraph(of entry: any AnyServiceEntry, remembering record: GraphRecord?) {
        let entry = entry as! ServiceEntry<Service>
        if record == nil, entry.kind != .custom {
            if let cache = entry.cache {
                replace(&cache.graphInstance, with: nil)
            }
        } else {
            entry.completeGraph(remembering: record)
        }
    }
}

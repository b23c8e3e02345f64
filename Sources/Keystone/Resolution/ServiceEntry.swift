public import Foundation

/// One registration: its factory, its scope, the instances the scope keeps, and the actions run
/// after each new instance is created.
///
/// `register` returns the entry so that it can be configured by chaining:
///
/// ```swift
/// container.register(Person.self) { _ in PetOwner() }
///     .inObjectScope(.container)
///     .initCompleted { resolver, person in
///         (person as! PetOwner).pet = resolver.resolve(Animal.self)
///     }
///     .implements(Greeter.self)
/// ```
///
/// The registration is visible to every thread when `register` returns; each call chained to it takes
/// the container's lock and applies at once, so a resolve made in between sees the registration as it
/// was configured until then. ``SynchronizedResolver/withContainer(_:)`` registers a batch that other
/// threads see whole.
public final class ServiceEntry<Service> {
    // Field order matters: every field of a size that does not depend on `Service` comes first, so that
    // even code that is not specialized for `Service` reaches them, and `instance`, at constant offsets,
    // without looking up the class's generic metadata.

    /// How many resolves reached this entry while the hierarchy counted them
    /// (``Container/countsResolutions``), cached ones included.
    ///
    /// The fields the resolve path reads and writes skip dynamic exclusivity checks: the engine never
    /// overlaps two accesses to one of them (a resolve reads or writes each in a single statement).
    /// Measured by removing them: rows `container` +60%, `graph` +57%, `argument` +54% instructions.
    @exclusivity(unchecked) @usableFromInline var resolutionCount = 0
    @exclusivity(unchecked) @usableFromInline var kind: ScopeKind
    /// Whether a `.container`-kind scope keeps value-type instances (see `ObjectScope.sharesValues`).
    @exclusivity(unchecked) @usableFromInline var sharesValues: Bool
    /// How many resolutions of this entry are creating an instance right now (cycle detection); kept by
    /// the generic resolve path around each frame it pushes. 32 bits, so that it shares a word with the
    /// two fields above; its bound is the depth of the call stack.
    @exclusivity(unchecked) @usableFromInline var activeFrames: Int32 = 0
    @exclusivity(unchecked) @usableFromInline var graphEpoch: UInt64 = 0

    /// Resolves this entry, given as `AnyObject`, for code that does not know `Service`: see
    /// ``ErasedResolve``.
    @usableFromInline let resolveErased: ErasedResolve
    /// Ends this entry's part in a graph: ``completeGraph(of:remembering:)``, compiled for `Service` by
    /// the registration, as the graph lists the entry (``ResolutionState/touch(_:completing:)``). Held
    /// here rather than named where the graph lists the entry, so that the resolve compiled for each
    /// registration stays free of per-type constants and mergeable (see ARCHITECTURE.md, "Code size").
    @usableFromInline let completesGraph: TouchedEntry.Completion
    @usableFromInline let plainFactory: ((any Resolver) throws -> Service)?
    @usableFromInline let argumentFactory: FactoryBox?
    /// The `initCompleted` actions, in the order added; `nil` until the first is added. Optional, like
    /// `disposalHandlers`: an empty array of a type generic over `Service` costs a function-type metadata
    /// lookup in every registration, whose initializer is not specialized (`register` row: 150
    /// instructions). Changed under the hierarchy's lock in single statements, and read by every resolve
    /// that creates an instance (`hasInitCompletedActions`): no dynamic exclusivity checks (rows `graph`
    /// and `argument` +14% instructions with them).
    @exclusivity(unchecked) @usableFromInline var initCompletedActions: [(any Resolver, Service) throws -> Void]?
    /// Whether there are `initCompleted` actions: a null test of one word.
    @inlinable var hasInitCompletedActions: Bool { initCompletedActions != nil }

    /// The key the entry is registered under.
    public let key: ServiceKey
    /// When the entry was registered.
    public let registeredAt: Date
    /// The container the entry was registered in, while it exists (for `implements`), and the hierarchy
    /// whose lock guards the entry's configuration. Written under that lock, in single statements: no
    /// dynamic exclusivity checks (`register` row: 3% more instructions with them).
    @exclusivity(unchecked) @usableFromInline var owner: ContainerToken?
    /// What only some registrations need, made on first use (see ``EntryExtras``).
    private var extras: EntryExtras?
    /// The scope that decides how long a resolved instance is shared.
    public private(set) var objectScope: any ObjectScopeProtocol

    /// The entry's identity in the records of remembered graphs (`Lazy`, ``GraphIdentifier``), given on
    /// first use: unlike its address, it is never reused by a later registration.
    @usableFromInline
    var graphRecordKey: UInt64 {
        let extras = madeExtras
        if extras.graphRecordIdentity == 0 {
            extras.graphRecordIdentity = GraphRecord.newKey()
        }
        return extras.graphRecordIdentity
    }
    /// What a front (``Registry``, ``DependencyRegistry``) records about this registration; `nil` for
    /// plain registrations. Read and written under the hierarchy's lock only.
    @usableFromInline var front: FrontRecord? {
        get { extras?.front }
        set { updateExtras(storing: newValue != nil) { $0.front = newValue } }
    }
    /// Set once the entry's container no longer reaches it (replaced or removed): a child's key forwarded
    /// to it is then the only way to it, and that child ends what it keeps (`dispose()`, `drop`).
    @usableFromInline var isOrphaned: Bool {
        get { extras?.isOrphaned ?? false }
        set { updateExtras(storing: newValue) { $0.isOrphaned = newValue } }
    }
    /// The custom scope's storage, once made.
    var storage: (any InstanceStorage)? {
        get { extras?.storage }
        set { updateExtras(storing: newValue != nil) { $0.storage = newValue } }
    }
    /// The `.weak`-scoped instance, when it is an object.
    @usableFromInline var weakObject: AnyObject? {
        get { extras?.weakObject }
        set { updateExtras(storing: newValue != nil) { $0.weakObject = newValue } }
    }

    /// Writes a field of `extras`, made first if `storing` a value; clearing a field of extras that do not
    /// exist does nothing.
    private func updateExtras(storing: Bool, _ write: (EntryExtras) -> Void) {
        if storing || extras != nil {
            write(madeExtras)
        }
    }

    /// `extras`, made if needed.
    private var madeExtras: EntryExtras {
        if let extras {
            return extras
        }
        let made = EntryExtras()
        extras = made
        return made
    }

    /// What `dispose()` runs for each instance the container holds, in the order added; `nil` until the
    /// first is added. Kept in ``EntryExtras``: only adding a handler and disposing of an instance read it.
    var disposalHandlers: DisposalHandlers? {
        extras?.disposalHandlers
    }

    /// The instances the scope keeps, made when the first one is stored. Keeping them out of the entry
    /// gives the entry a layout that does not depend on `Service`: registering and deallocating it then
    /// costs no generic metadata lookups, and a transient registration never allocates it.
    @exclusivity(unchecked) @usableFromInline var cache: InstanceCache<Service?>?

    /// The `.container`-scoped instance.
    @inlinable
    var instance: Service? {
        get { cache?.instance }
        set {
            if let cache {
                replace(&cache.instance, with: newValue)
            } else if case .some = newValue {
                cache = InstanceCache(instance: newValue)
            }
        }
    }

    /// The instance of the graph whose serial number is `graphEpoch`.
    @inlinable
    var graphInstance: Service? {
        get { cache?.graphInstance }
        set {
            if let cache {
                replace(&cache.graphInstance, with: newValue)
            } else if case .some = newValue {
                cache = InstanceCache(graphInstance: newValue)
            }
        }
    }

    @usableFromInline
    init(
        key: ServiceKey,
        scope: any ObjectScopeProtocol,
        plainFactory: ((any Resolver) throws -> Service)?,
        argumentFactory: FactoryBox?,
        resolveErased: @escaping ErasedResolve,
        completesGraph: @escaping TouchedEntry.Completion,
        registeredAt: Date = Date()
    ) {
        self.resolveErased = resolveErased
        self.completesGraph = completesGraph
        self.key = key
        self.registeredAt = registeredAt
        self.objectScope = scope
        (kind, sharesValues) = ScopeKind.of(scope)
        self.plainFactory = plainFactory
        self.argumentFactory = argumentFactory
    }

    /// Specifies how long a resolved instance is shared. The default is the container's
    /// `defaultObjectScope`, itself ``ObjectScope/graph`` unless set.
    ///
    /// Changing the scope discards an instance the previous scope held.
    ///
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func inObjectScope(_ objectScope: ObjectScope) -> Self {
        inObjectScope(objectScope as any ObjectScopeProtocol)
    }

    /// Specifies how long a resolved instance is shared, with a scope of your own.
    ///
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func inObjectScope(_ objectScope: any ObjectScopeProtocol) -> Self {
        configure {
            discardInstance()
            // Only inside a resolve (a factory or an action changing a scope) are frames on the stack.
            if let state = owner?.hierarchy.state, !state.frames.isEmpty {
                state.noteScopeChanged(self)
            }
            self.objectScope = objectScope
            (kind, sharesValues) = ScopeKind.of(objectScope)
            storage = nil
        }
        return self
    }

    /// Adds an action to run right after the factory creates a new instance, before it is returned.
    ///
    /// The instance is already stored in its scope when the action runs, so resolving something that
    /// resolves this entry again returns this instance: that is how two objects that need each other
    /// are wired up without a cycle. Actions run in the order they were added.
    ///
    /// ```swift
    /// container.register(Parent.self) { _ in Parent() }
    ///     .initCompleted { r, parent in parent.child = r.resolve(Child.self) }
    /// container.register(Child.self) { r in Child(parent: r.resolve(Parent.self)!) }
    /// ```
    ///
    /// An action may throw; the resolve then fails with ``DIError/factoryFailed(key:path:underlying:)``.
    ///
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func initCompleted(_ completed: @escaping (any Resolver, Service) throws -> Void) -> Self {
        configure {
            initCompletedActions = (initCompletedActions ?? []) + [completed]
        }
        return self
    }

    /// Adds a handler that ``Container/dispose()`` and ``Container/disposeAsync()`` run for an instance
    /// this registration's container holds (`.container` and `.multiton`), before dropping it.
    ///
    /// ```swift
    /// container.register(Database.self) { _ in Database.open() }
    ///     .inObjectScope(.container)
    ///     .onDispose { database in try database.close() }
    /// ```
    ///
    /// Handlers of one registration run in the order they were added; an error one throws is reported
    /// by `dispose()` once every handler has run.
    ///
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func onDispose(_ handler: @escaping (Service) throws -> Void) -> Self {
        configure { addDisposalHandler(.sync { instance in try handler(instance as! Service) }) }
        return self
    }

    /// Adds an asynchronous disposal handler, which only ``Container/disposeAsync()`` runs
    /// (``Container/dispose()`` skips it).
    ///
    /// ```swift
    /// container.register(Connection.self) { _ in Connection() }
    ///     .inObjectScope(.container)
    ///     .onDisposeAsync { connection in await connection.drain() }
    /// ```
    ///
    /// It runs in its place among the registration's handlers, in the order they were added, in the
    /// isolation `disposeAsync()` is called from (as an async factory runs in the resolve's): the
    /// instance does not leave the caller's actor. A handler closure that captures an actor's `self` is
    /// not isolated to that actor (Swift 6.3): it reaches the actor's state with `await`, as the compiler
    /// requires.
    ///
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func onDisposeAsync(
        _ handler: nonisolated(nonsending) @escaping @Sendable (Service) async throws -> Void
    ) -> Self {
        configure { addDisposalHandler(.async { instance in try await handler(instance as! Service) }) }
        return self
    }

    /// Appends `handler`, erased to take the instance as `Any`, to ``disposalHandlers``. A disposal keeps
    /// the instance it ends as `Any` holding the registration's `Service` (`InstanceCache.appendDisposals`,
    /// `SingleFlight`'s outcome), so the cast in each handler cannot fail.
    private func addDisposalHandler(_ handler: DisposalHandlers.Handler) {
        let extras = madeExtras
        if extras.disposalHandlers == nil {
            extras.disposalHandlers = DisposalHandlers(handlers: [handler])
        } else {
            extras.disposalHandlers?.handlers.append(handler)
        }
    }

    /// Changes the entry under its hierarchy's lock, so that no synchronized resolve reads it half changed.
    private func configure(_ change: () -> Void) {
        if let hierarchy = owner?.hierarchy {
            hierarchy.withLock(change)
        } else {
            change()
        }
    }

}

/// The instances a registration's scope keeps: the `.container` instance, and the instance of the graph
/// being resolved.
///
/// `Held` is the registration's `Service?`. The instances are fields of the class's own generic parameter,
/// so that destroying them, in the deinitializer (compiled once, generically, like every generic class's),
/// takes that parameter's metadata from the class's. As fields of type `Service?` they made every
/// deallocation look up the metadata of `Optional<Service>` (`app-launch` row: 4% of its instructions).
@usableFromInline
final class InstanceCache<Held: HeldInstance> {
    // Read and written under the hierarchy's lock, one statement at a time; unchecked: rows `container`
    // +31% and `synchronized-container` +17% instructions with the checks.
    @exclusivity(unchecked) @usableFromInline var instance: Held
    @exclusivity(unchecked) @usableFromInline var graphInstance: Held
    /// When `instance` completed (its factory and `initCompleted` actions done), in the hierarchy's
    /// order of completions: `dispose()` goes newest first.
    ///
    /// This and `generation` are changed under the hierarchy's lock, in single statements; unchecked:
    /// `server-scope` (the example server's request scope) 3% more instructions with the checks, with
    /// those of ``ResolutionState/completions``.
    @exclusivity(unchecked) @usableFromInline var completion: UInt64 = 0
    /// Changed each time the scope drops its instances (``ServiceEntry/discardInstance()``, disposal): a
    /// creation in flight started at another generation does not keep its instance.
    @exclusivity(unchecked) @usableFromInline var generation: UInt64 = 0
    /// The `.multiton` instances, by their arguments, with when each completed. Read by every `.multiton`
    /// resolve and changed in single statements, under the hierarchy's lock; unchecked: row `multiton-hit`
    /// +17% instructions with the checks.
    /// The instances are never `nil`.
    @exclusivity(unchecked) @usableFromInline var byArguments: [MultitonKey: (instance: Held, completion: UInt64)] =
        [:]

    @usableFromInline
    init(instance: Held = nil, graphInstance: Held = nil) {
        self.instance = instance
        self.graphInstance = graphInstance
    }

    /// Drops the `.container` instance. A method of the cache, so that, compiled generically, it takes
    /// `Held` from the cache's class: an entry writing `nil` itself looks up `Optional<Service>`.
    func dropInstance() {
        replace(&instance, with: nil)
    }

    /// Drops the `.multiton` instances.
    func dropInstancesByArguments() {
        var dropped: [MultitonKey: (instance: Held, completion: UInt64)] = [:]
        swap(&dropped, &byArguments)
    }

    /// Adds to `disposals` one disposal for each instance kept: the `.container` one if `instance`, the
    /// `.multiton` ones if `byArguments`; each keeps its instance as `Any`, the registration's `Service`,
    /// and has its completion. Returns whether it added any. The instances stay here:
    /// ``ServiceEntry/discardInstance()`` drops them.
    ///
    /// A method of the cache, so that, compiled generically, it takes `Held` from the cache's class
    /// (the entry reading the instances itself looked up `Optional<Service>`, and the tuple of
    /// `byArguments`: `request-scope` row, 9% of its instructions with the disposal's closures).
    func appendDisposals(
        to disposals: inout [Disposal],
        key: ServiceKey,
        handlers: DisposalHandlers?,
        instance includesInstance: Bool,
        byArguments includesByArguments: Bool
    ) -> Bool {
        var took = false
        if includesInstance, let taken = instance.boxedInstance {
            disposals.append(Disposal(key: key, completion: completion, instance: taken, handlers: handlers))
            took = true
        }
        if includesByArguments, !byArguments.isEmpty {
            for kept in byArguments.values {
                if let taken = kept.instance.boxedInstance {
                    let disposal = Disposal(key: key, completion: kept.completion, instance: taken, handlers: handlers)
                    disposals.append(disposal)
                }
            }
            took = true
        }
        return took
    }

    /// Takes the `.container` instance, as `Any`, with when it completed.
    func takeInstance() -> (instance: Any, completion: UInt64)? {
        guard let taken = instance.boxedInstance else { return nil }
        dropInstance()
        return (taken, completion)
    }

    /// Takes the `.multiton` instance kept for `identity`, as `Any`, with when it completed.
    func takeInstance(forArguments identity: MultitonKey) -> (instance: Any, completion: UInt64)? {
        guard let kept = byArguments.removeValue(forKey: identity), let taken = kept.instance.boxedInstance else {
            return nil
        }
        return (taken, kept.completion)
    }

    /// Drops the `.multiton` instance kept for `identity`, if any.
    @usableFromInline
    func dropInstance(forArguments identity: MultitonKey) {
        let dropped = byArguments.removeValue(forKey: identity)
        withExtendedLifetime(dropped) {}
    }
}

/// What ``InstanceCache`` needs of `Held`, the registration's `Service?`, in code compiled once for every
/// service: the instance as `Any`. No associated type, so that `Optional`'s conformance is one static
/// witness table, with nothing to look up at run time.
@usableFromInline
protocol HeldInstance: ExpressibleByNilLiteral {
    /// The instance held, as its own type (not wrapped in an `Optional`), or `nil` if none.
    var boxedInstance: Any? { get }
}

extension Optional: HeldInstance {
    @usableFromInline
    var boxedInstance: Any? {
        switch self {
        case .some(let instance): instance
        case .none: nil
        }
    }
}

/// Puts `value` in `slot`, and only then lets the value it replaces go. Releasing an instance may run its
/// deinitializer, which may come back to the container (resolve, dispose): it must find the new value in
/// place. An assignment of a generic value destroys the old value first, while the slot still holds it (a
/// `dispose()` from that deinitializer took the dying instance and released it a second time).
@inlinable
func replace<Value>(_ slot: inout Value, with value: Value) {
    var replaced = value
    swap(&slot, &replaced)
}

/// The fields of a ``ServiceEntry`` that only some registrations use (a custom scope's storage, a
/// `.weak` instance, a front's record, an identity in remembered graphs, disposal handlers), in an
/// object of their own made on first use: a plain registration keeps one null word for all of them,
/// and one weak reference less to destroy (memory row: 22% less per registration, with `activeFrames`
/// packed beside the flags; moving the disposal handlers here later saved a little more).
@usableFromInline
final class EntryExtras {
    var storage: (any InstanceStorage)?
    weak var weakObject: AnyObject?
    var graphRecordIdentity: UInt64 = 0
    var isOrphaned = false
    var front: FrontRecord?
    var disposalHandlers: DisposalHandlers?

    init() {}
}

/// What the engine needs of an entry without knowing its service type.
@usableFromInline
protocol AnyServiceEntry: AnyObject {
    var key: ServiceKey { get }
    /// The entry's identity, never reused by another registration (see ``ServiceEntry/graphRecordKey``):
    /// what a front keeps to find its registration again without referring to the entry. Read under the
    /// hierarchy's lock (it is made on first use).
    var graphRecordKey: UInt64 { get }
    var objectScope: any ObjectScopeProtocol { get }
    var registeredAt: Date { get }
    var resolutionCount: Int { get set }
    var initCompletedCount: Int { get }
    /// Whether an instance is held now (a `.graph` instance counts only while its graph is resolved).
    var holdsInstance: Bool { get }
    /// Whether a second resolve in the same graph returns the instance the first one created.
    var reusesInstanceInGraph: Bool { get }
    /// Forgets the instance the scope holds (`resetObjectScope`, re-registration, `removeAll`).
    func discardInstance()
    /// Ends the graph being resolved: hands the graph's instance to `record` (weakly) and drops it.
    func completeGraph(remembering record: GraphRecord?)
    /// The line a container's description prints for this entry registered (or forwarded) under `key`.
    func describe(as key: ServiceKey) -> String
    /// The token of the container the entry is registered in.
    var owner: ContainerToken? { get set }
    /// What a front recorded about this registration; `nil` for plain registrations.
    var front: FrontRecord? { get set }
    /// Whether the entry's own container no longer reaches it: see ``ServiceEntry/isOrphaned``.
    var isOrphaned: Bool { get set }
    /// The entry's type-erased resolve.
    var resolveErased: ErasedResolve { get }
    /// The scope's name, for reports and graphs.
    var objectScopeName: String { get }
    /// A copy with the same key, factory, scope, actions and front record, that holds no instance: what
    /// `verify()` and `dependencyGraph()` resolve instead of the entry.
    func scratchCopy() -> any AnyServiceEntry
    /// Where the factory must run, for an async or main-actor registration; `nil` for a synchronous one.
    var isolation: FactoryIsolation? { get }
    /// For a `.container` async registration with no instance yet, its scope's generation, which a
    /// creation in flight must have been started in (see `Container.flightToJoin(_:)`); else `nil`.
    var generationOfSharedCreation: UInt64? { get }
    /// Whether the scope is `.container`-kind: one instance for the registration.
    var keepsOneInstance: Bool { get }
    /// Whether the scope keeps one instance when resolved without arguments: `.container`, or
    /// `.multiton` (one instance per argument values, so one for none). What `warmUp()` creates.
    var keepsOneInstanceWithoutArguments: Bool { get }
    /// Whether the scope's instances are disposed of (`.container` and `.multiton`): what disposal
    /// handlers run for, and what a disposing call that drops a creation in flight leaves it to end.
    var disposesOfInstances: Bool { get }
    /// Resolves this entry, found under `key` (forwarded, or with its type erased), asynchronously.
    nonisolated(nonsending) func resolveAsyncErased<Arguments>(
        as key: ServiceKey,
        arguments: Arguments,
        in container: Container,
        context: AsyncResolution
    ) async throws(DIError) -> Handoff<Any>
    /// Resolves this entry, which takes no arguments, as a top-level asynchronous call, for `warmUp()`.
    nonisolated(nonsending) func resolveAsTopLevel(as key: ServiceKey, in container: Container) async throws(DIError)
    /// Takes the instances this entry holds for its container (`.container` and `.multiton`), with the
    /// disposal handlers bound to each, and drops them; with the instances its creations in flight will
    /// make, which they will not keep. The caller holds the lock.
    func takeForDisposal(into disposals: inout [Disposal])
    /// Takes the instance this entry keeps (for `.multiton`, the one of the arguments `identity`), with
    /// its disposal handlers, and drops it: it was kept by a call that failed. The caller holds the lock.
    func takeKept(forArguments identity: MultitonKey?) -> [Disposal]
    /// Resolves this entry, which takes no runtime arguments, as a root of `verify()`'s exploration.
    func resolveForInspection(as key: ServiceKey, in container: Container) throws(DIError)
    /// Resolves this entry for a key forwarded to it, as `Any`.
    func resolveForwarded<Arguments>(
        as key: ServiceKey,
        arguments: Arguments,
        state: ResolutionState,
        resolver: any Resolver
    ) throws(DIError) -> Any
}

extension ServiceEntry: AnyServiceEntry {
    @usableFromInline
    var initCompletedCount: Int {
        initCompletedActions?.count ?? 0
    }

    @usableFromInline
    var isolation: FactoryIsolation? {
        argumentFactory?.isolation
    }

    @usableFromInline
    func resolveForwarded<Arguments>(
        as key: ServiceKey,
        arguments: Arguments,
        state: ResolutionState,
        resolver: any Resolver
    ) throws(DIError) -> Any {
        try state.resolveInCall(self, as: key, arguments: arguments, resolver: resolver)
    }

    @usableFromInline
    var objectScopeName: String {
        String(describing: objectScope)
    }

    @usableFromInline
    func scratchCopy() -> any AnyServiceEntry {
        var plainFactory = plainFactory
        var argumentFactory = argumentFactory
        if let isolated = argumentFactory as? any IsolatedFactory {
            // Inspection never runs an async or main-actor factory: a synchronous resolve of one is
            // reported, unless `warmUp()` creates it first.
            let standIn = isolated.inspectionCopy(
                warmUpSatisfies: keepsOneInstanceWithoutArguments && !key.takesArguments
            )
            argumentFactory = standIn
            if !key.takesArguments {
                let box = standIn as! ArgumentFactory<Service, Void>
                plainFactory = { resolver in try box.body(resolver, ()) }
            }
        }
        let copy = ServiceEntry(
            key: key,
            scope: objectScope,
            plainFactory: plainFactory,
            argumentFactory: argumentFactory,
            resolveErased: resolveErased,
            completesGraph: completesGraph,
            registeredAt: registeredAt
        )
        copy.initCompletedActions = initCompletedActions
        copy.owner = owner
        copy.front = front
        return copy
    }

    @usableFromInline
    func resolveForInspection(as key: ServiceKey, in container: Container) throws(DIError) {
        let state = container.hierarchy.state
        state.noteRequest(key, scope: objectScopeName)
        _ = try state.resolveInCall(self, as: key, arguments: (), resolver: container)
    }

    /// `{ Service: Animal, Name: "cat", Factory: (Resolver, String) -> Animal, ObjectScope: graph }`,
    /// the line a container's description prints for the entry registered under `key`.
    @usableFromInline
    func describe(as key: ServiceKey) -> String {
        var text = "Service: \(key.serviceType)"
        if let name = key.name {
            text += ", Name: \"\(name)\""
        }
        let resolverAndArguments: String
        if key.takesArguments {
            let arguments = key.argumentsDescription.dropFirst().dropLast()
            resolverAndArguments = "(Resolver, \(arguments))"
        } else {
            resolverAndArguments = "Resolver"
        }
        text += ", Factory: \(resolverAndArguments) -> \(key.serviceType)"
        text += ", ObjectScope: \(objectScope)"
        if let actions = initCompletedActions {
            text += ", InitCompleted: Specified \(actions.count) closures"
        }
        return text
    }
}

extension ServiceEntry {
    /// The type the entry is registered as: `key.serviceType`, under the name Swinject's `ServiceEntry`
    /// gives it, so that behaviors written for Swinject compile.
    ///
    /// ```swift
    /// func container<Type, Service>(_ c: Container, didRegisterType: Type.Type,
    ///                               toService entry: ServiceEntry<Service>, withName name: String?) {
    ///     print("registered \(entry.serviceType)")
    /// }
    /// ```
    public var serviceType: Any.Type {
        key.serviceType
    }
}

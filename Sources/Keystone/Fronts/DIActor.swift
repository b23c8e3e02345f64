/// An actor that registers and resolves services with `await`, from any task, on top of one Keystone
/// ``Container``.
///
/// ```swift
/// let dependencies = DIActor.shared
/// await dependencies.register(Clock.self) { SystemClock() }
/// let releaseDatabase = await dependencies.registerSharedActor(Database.self) { Database() }
///
/// let clock = await dependencies.resolve(Clock.self)           // a new SystemClock
/// let database = try await dependencies.resolveThrows(Database.self) // the one Database
///
/// await releaseDatabase()                                     // gone, with its instance
/// ```
///
/// ### One engine
///
/// `DIActor` keeps no registrations, instances or counters of its own. It fronts a ``Container`` and
/// turns each call into that container's: a registration is a container registration with a scope,
/// a resolve is the container's resolve (errors are the container's ``DIError``), and the inspection
/// calls return the container's counts, ``Container/statusReport()``, ``Container/verify(samples:)``
/// and ``Container/dependencyGraph(samples:)``.
///
/// ``shared`` fronts ``Container/current``, the container ``Registry``, ``DependencyRegistry`` and the
/// property wrappers use: the process-wide default container, or the one that
/// ``Container/withCurrent(_:operation:)`` binds for the calling task. A registration made through any
/// of them is resolvable through the others, and all of them take that container's one lock, so a
/// `DIActor` factory that builds an object with `@Inject`, and a ``DependencyRegistry`` instantiator
/// that calls ``DIActorBridge/resolveSync(_:)``, can run on two threads at once without waiting for
/// each other forever:
///
/// ```swift
/// DependencyRegistry.register { () -> Analytics in ConsoleAnalytics() }
/// let analytics = await DIActor.shared.resolve(Analytics.self)   // the facade's shared instance
/// ```
///
/// An actor made with ``init()`` has a container of its own instead.
///
/// ### Lifetimes
///
/// | call | scope | the factory runs |
/// |---|---|---|
/// | ``register(_:factory:)`` | ``ObjectScope/transient`` | on every resolve |
/// | ``register(_:instance:)`` | ``ObjectScope/container`` | never: every resolve returns the instance |
/// | ``registerSharedActor(_:factory:)`` | ``ObjectScope/container`` | once, on the first resolve |
///
/// A factory registered with ``register(_:factory:)`` is called each time its type is resolved, so each
/// resolve gets a new instance; ask for one shared instance with ``registerSharedActor(_:factory:)``.
///
/// ### No separate cache
///
/// Resolving is a direct lookup in the container's table, keyed by the type itself, and a shared
/// instance is returned straight from its registration. There is no "hot" cache of frequently
/// resolved types on top of that, because there is nothing left for one to save: it would only add a
/// second lookup, memory, and a copy that a release would have to invalidate.
///
/// ### Thread safety
///
/// Every call into the container, whether registering, resolving, releasing or reporting, runs under
/// the recursive lock that the container's ``Container/synchronize()`` view takes (for ``shared``, the
/// lock the facades take too). That lock is what keeps the container consistent, which is why
/// ``DIActorBridge``'s synchronous calls can use the container of ``shared`` from any thread without
/// hopping onto the actor. The actor itself holds no mutable state: its isolation gives its callers the
/// `await` shape and runs their calls one at a time, and protects nothing else. For ``shared``, whose
/// container is the calling task's ``Container/current``, calls made for different containers (tests
/// each inside their own ``Container/withCurrent(_:operation:)``) take turns on the one actor, each
/// under its own container's lock. Since the lock is recursive, a factory registered on
/// ``shared`` may resolve what it needs with ``DIActorBridge/resolveSync(_:)`` on its own thread, and a
/// factory that ends up resolving its own type fails that resolve with
/// ``DIError/circularDependency(path:)`` instead of recursing.
///
/// Every type that crosses the actor's boundary is `Sendable`: what you register, and so what a
/// resolve hands back to the caller's task. The factories are `@Sendable`, since they run on the actor
/// or on a thread calling ``DIActorBridge/resolveSync(_:)``.
///
/// > Warning: A factory runs holding the container's lock, so keep it short. It must never block
/// > waiting for another thread or task that uses `DIActor` or ``DIActorBridge``: that thread waits for
/// > the lock the factory holds, and neither can go on.
@globalActor
public final actor DIActor {
    // `final`: an actor's methods are otherwise called through its vtable from other modules, which then
    // cannot specialize the inlinable generic resolves (`actor-resolve` row: half the instructions).

    /// The process-wide instance, used by ``DIActorGlobalAPI``, ``DIActorBridge`` and the `@DIActor`
    /// attribute. It fronts ``Container/current``, the container ``Registry``, ``DependencyRegistry``
    /// and the property wrappers use: the process-wide default container, or, inside
    /// ``Container/withCurrent(_:operation:)``, the container bound for the calling task.
    ///
    /// ```swift
    /// await DIActor.shared.register(Analytics.self) { ConsoleAnalytics() }
    /// let sameOne: Analytics = DependencyRegistry.resolve()   // from the same container
    ///
    /// await Container.withCurrent(Container()) {
    ///     await DIActor.shared.register(Analytics.self) { SilentAnalytics() }   // this test's container
    /// }
    /// ```
    ///
    /// So one process-wide front means one container, and one lock, wherever it is called from. Each
    /// call finds the container anew: a task (or a child task it starts, or a factory it runs) inside
    /// `withCurrent` registers into and resolves from the bound container, a detached task or another
    /// thread from the default one. A release handler removes its registration from the container it was
    /// made in, wherever it is called. From the first call that fronts a container on, that container
    /// counts its resolves for ``printStatus()`` (``Container/countsResolutions``), which takes them off
    /// the fastest resolve path; set it back to `false` where that matters more than the report.
    ///
    /// > Warning: Outside `withCurrent` its registrations are global to the process, and shared with the
    /// > facades: its ``releaseAll()`` clears the current container, removing what ``Registry`` modules
    /// > and ``DependencyRegistry`` registered there too. Tests that run in parallel should each bind a
    /// > container of their own with ``Container/withCurrent(_:operation:)`` (or use an actor of their
    /// > own, ``init()``), and never call ``releaseAll()`` on it outside one.
    public static let shared = DIActor(fronting: nil)

    /// The view of the container an actor made with ``init()`` fronts; `nil` for ``shared``, which
    /// fronts the calling task's ``Container/current``.
    @usableFromInline nonisolated let ownEngine: SynchronizedResolver?

    /// The container, through its synchronized view: each resolve takes the container's lock.
    /// `nonisolated`, so that ``DIActorBridge`` reaches the same container synchronously.
    @inlinable nonisolated var engine: SynchronizedResolver {
        if let ownEngine {
            return ownEngine
        }
        return FrontContext.current.actorResolver
    }

    /// Creates an actor with an empty container of its own.
    ///
    /// Use one in a test, or for a part of the app whose registrations should not mix with those of
    /// ``shared``:
    ///
    /// ```swift
    /// let dependencies = DIActor()
    /// await dependencies.register(Clock.self) { FixedClock(now: .distantPast) }
    /// ```
    ///
    /// > Warning: The `@DIActor` attribute, ``DIActorGlobalAPI`` and ``DIActorBridge`` always use
    /// > ``shared``, never an instance made here. Its container is not the facades' either, and
    /// > ``Container/withCurrent(_:operation:)`` does not change it: a factory registered here that
    /// > builds an object with `@Inject` takes this container's lock, then the facades'; never have a
    /// > facade's factory call back into this actor's container synchronously.
    public init() {
        self.init(fronting: Container().synchronize())
    }

    /// An actor that fronts the container behind `engine`, and has it count resolves, which its status
    /// report shows (``Container/countsResolutions``); with `nil`, the actor fronts the calling task's
    /// current container, which counts from the first call that reaches it.
    private init(fronting engine: SynchronizedResolver?) {
        ownEngine = engine
        engine?.container.countsResolutions = true
    }

    // MARK: - Registering

    /// Registers a factory that makes a new instance of `type` each time it is resolved.
    ///
    /// ```swift
    /// let release = await DIActor.shared.register(UserRepository.self) { RemoteUserRepository() }
    /// let repository = await DIActor.shared.resolve(UserRepository.self)  // a new instance
    /// await release()
    /// ```
    ///
    /// Registering `type` again replaces this registration. `T` must be `Sendable`, since each instance
    /// leaves the actor for the task that resolved it, and so must the factory, which runs on the actor
    /// or on a thread calling ``DIActorBridge/resolveSync(_:)``.
    ///
    /// - Parameters:
    ///   - type: The type to resolve the instances as, usually a protocol.
    ///   - factory: Makes an instance; called on every resolve.
    /// - Returns: A handler that removes this registration. It leaves alone a registration that has
    ///   replaced this one since, and calling it again does nothing.
    ///
    /// > Warning: Each resolve runs the factory again. For one instance shared by every resolve, use
    /// > ``registerSharedActor(_:factory:)`` or ``register(_:instance:)``.
    @discardableResult
    public func register<T: Sendable>(
        _ type: T.Type,
        factory: @escaping @Sendable () -> T
    ) -> @Sendable () async -> Void {
        releaseHandler(for: add(type, scope: .transient, factory: factory))
    }

    /// Registers an instance that every resolve of `type` returns.
    ///
    /// ```swift
    /// let config = ServerConfig(host: "example.com", port: 443)
    /// await DIActor.shared.register(ServerConfig.self, instance: config)
    /// ```
    ///
    /// Registering `type` again replaces it; ``release(_:)`` removes it.
    ///
    /// - Parameters:
    ///   - type: The type to resolve the instance as.
    ///   - instance: The instance to return; it is shared by every task that resolves it.
    ///
    /// > Warning: Every task that resolves `type` gets this very instance. A class instance must be safe
    /// > to use from several tasks at once, not merely declared `@unchecked Sendable`.
    public func register<T: Sendable>(_ type: T.Type, instance: T) {
        _ = add(type, scope: .container) { instance }
    }

    /// Registers a factory for one shared instance of `type`, created on the first resolve and returned
    /// by every resolve after it.
    ///
    /// ```swift
    /// let release = await DIActor.shared.registerSharedActor(Database.self) { Database() }
    /// let first = await DIActor.shared.resolve(Database.self)
    /// let second = await DIActor.shared.resolve(Database.self)   // the same Database
    /// await release()                                            // resolve now returns nil
    /// ```
    ///
    /// The factory runs once however many tasks resolve `type` at the same time. The instance is kept
    /// until the registration is replaced or removed. An actor is the natural shape for such a
    /// service, hence the name, but any `Sendable` type works.
    ///
    /// - Parameters:
    ///   - type: The type to resolve the shared instance as.
    ///   - factory: Makes the instance; called once.
    /// - Returns: A handler that removes this registration and drops its instance. It leaves alone a
    ///   registration that has replaced this one since, and calling it again does nothing.
    ///
    /// > Warning: Tasks that resolved the instance before a release keep using it; a release only stops
    /// > new resolves from returning it.
    @discardableResult
    public func registerSharedActor<T: Sendable>(
        _ type: T.Type,
        factory: @escaping @Sendable () -> T
    ) -> @Sendable () async -> Void {
        releaseHandler(for: add(type, scope: .container, factory: factory))
    }

    /// Registers an async factory for `type`, which ``resolveAsync(_:)`` runs.
    ///
    /// ```swift
    /// await DIActor.shared.registerAsync(RemoteConfig.self, scope: .container) {
    ///     try await RemoteConfig.fetch()
    /// }
    /// let config = try await DIActor.shared.resolveAsync(RemoteConfig.self)
    /// ```
    ///
    /// It is an ordinary async registration of the container (``Container/registerAsync(_:name:factory:)-2cimr``):
    /// with `.container`, concurrent first resolves run the factory once and share the instance.
    ///
    /// - Parameters:
    ///   - type: The type to resolve the instances as.
    ///   - scope: How long an instance is shared: `.transient` (the default) makes one per resolve,
    ///     `.container` one for every resolve.
    ///   - factory: Makes an instance, asynchronously.
    /// - Returns: A handler that removes this registration, as ``register(_:factory:)``'s does.
    @discardableResult
    public func registerAsync<T: Sendable>(
        _ type: T.Type,
        scope: ObjectScope = .transient,
        factory: @escaping @Sendable () async throws -> T
    ) -> @Sendable () async -> Void {
        let container = container
        // The handler is made under the lock too: it reads the entry's identity, made on first use.
        let registration = container.withHierarchyLock {
            let entry = container.registerAsync(type) { _ in try await factory() }.inObjectScope(scope)
            return DIActorRegistration(entry, in: container)
        }
        return releaseHandler(for: registration)
    }

    // MARK: - Resolving

    /// Resolves `type`, running its factory asynchronously if it was registered with
    /// ``registerAsync(_:scope:factory:)``; synchronous registrations resolve as ``resolveThrows(_:)``.
    ///
    /// ```swift
    /// let config = try await DIActor.shared.resolveAsync(RemoteConfig.self)
    /// ```
    ///
    /// - Throws: A ``DIError`` that says what failed and how to fix it.
    public func resolveAsync<T: Sendable>(_ type: T.Type) async throws(DIError) -> T {
        try await engine.resolveAsync(type)
    }

    /// Resolves `type`, or returns `nil` if it cannot be resolved.
    ///
    /// ```swift
    /// if let analytics = await DIActor.shared.resolve(Analytics.self) {
    ///     await analytics.track("launch")
    /// }
    /// ```
    ///
    /// > Warning: `nil` hides why the resolve failed. For a dependency that must be there, use
    /// > ``resolveThrows(_:)`` or ``resolveResult(_:)``, whose ``DIError`` says what is missing and how
    /// > to fix it.
    @inlinable
    public func resolve<T: Sendable>(_ type: T.Type) -> T? {
        engine.resolveTypedOrNil(type)
    }

    /// Resolves `type` as a `Result` whose failure says why it cannot be resolved.
    ///
    /// ```swift
    /// switch await DIActor.shared.resolveResult(Database.self) {
    /// case .success(let database): await database.open()
    /// case .failure(let error): print(error)   // for example: No registration for Database. ...
    /// }
    /// ```
    ///
    /// > Warning: A failure is a programming error more often than not (a missing registration, a
    /// > cycle); report it rather than falling back silently.
    @inlinable
    public func resolveResult<T: Sendable>(_ type: T.Type) -> Result<T, DIError> {
        Result { () throws(DIError) in try engine.resolveTyped(type) }
    }

    /// Resolves `type`, or throws why it cannot be resolved.
    ///
    /// ```swift
    /// let database = try await DIActor.shared.resolveThrows(Database.self)
    /// ```
    ///
    /// - Throws: ``DIError/notRegistered(key:path:candidates:)`` naming `type` when nothing is
    ///   registered for it, ``DIError/circularDependency(path:)`` when its factory ends up resolving
    ///   it again.
    ///
    /// > Warning: Catch the error where the dependency is optional; elsewhere let it reach a place that
    /// > reports it, since its message says how to fix the registration.
    @inlinable
    public func resolveThrows<T: Sendable>(_ type: T.Type) throws(DIError) -> T {
        try engine.resolveTyped(type)
    }

    // MARK: - Releasing

    /// Removes the registration of `type`, whichever call made it, and drops its instance.
    ///
    /// ```swift
    /// await DIActor.shared.release(SessionStore.self)
    /// ```
    ///
    /// Releasing a type that is not registered does nothing. `T` need not be `Sendable`: only the
    /// type itself is passed.
    ///
    /// > Warning: It removes the current registration even if a release handler was returned for
    /// > it: prefer the handler when another part of the app may have registered `type` since.
    public func release<T>(_ type: T.Type) {
        container.unregister(ServiceKey(serviceType: T.self))
    }

    /// Removes every registration and drops every instance.
    ///
    /// ```swift
    /// await DIActor.shared.releaseAll()
    /// #expect(await DIActor.shared.registeredCount() == 0)
    /// ```
    ///
    /// Release handlers returned before do nothing afterwards, even once their types are registered
    /// again.
    ///
    /// > Warning: On ``shared`` it clears the current container (``Container/current``): outside
    /// > ``Container/withCurrent(_:operation:)``, the registrations of the whole process, including those
    /// > ``Registry`` modules and ``DependencyRegistry`` made there, and those of tests running in
    /// > parallel. A started ``Registry`` stays started, without its services.
    public func releaseAll() {
        let container = container
        container.withHierarchyLock {
            container.removeAll()
        }
    }

    // MARK: - Inspecting

    /// The number of registrations.
    ///
    /// ```swift
    /// let count = await DIActor.shared.registeredCount()
    /// ```
    ///
    /// > Warning: Another task may register or release right after the count is taken; use it for
    /// > diagnostics and tests, not to decide whether to register.
    public func registeredCount() -> Int {
        container.registeredCount()
    }

    /// The registered types, as text, sorted.
    ///
    /// ```swift
    /// for name in await DIActor.shared.allRegisteredTypes() {
    ///     print(" - \(name)")   // " - Database"
    /// }
    /// ```
    ///
    /// > Warning: The names are for people to read; two types with the same name in different modules
    /// > read the same.
    public func allRegisteredTypes() -> [String] {
        container.allRegisteredTypes()
    }

    /// A report of every registration: its type, scope, when it was registered, how often it was
    /// resolved, and whether an instance is held.
    ///
    /// ```swift
    /// let report = await DIActor.shared.statusReport()
    /// // Container with 2 registrations:
    /// // • Database [container] registered 2026-11-21T10:30:01Z, resolved 8 times, instance held
    /// // • UserRepository [transient] registered 2026-11-21T10:30:00Z, resolved 15 times
    /// ```
    ///
    /// The counts include resolves that returned the shared instance. It is the container's
    /// ``Container/statusReport()``.
    ///
    /// > Warning: The format is for people to read and may change; do not parse it.
    public func statusReport() -> String {
        container.statusReport()
    }

    /// Prints ``statusReport()``.
    ///
    /// ```swift
    /// await DIActor.shared.printStatus()
    /// ```
    ///
    /// > Warning: It writes to standard output; in a test, check ``statusReport()`` instead.
    public func printStatus() {
        container.printStatus()
    }

    /// Resolves every registration that takes no runtime arguments (and those `samples` gives arguments
    /// for) in a throwaway scope, and returns every problem met: ``Container/verify(samples:)`` of the
    /// actor's container.
    ///
    /// ```swift
    /// @Test func theActorsGraphResolves() async {
    ///     let dependencies = DIActor()
    ///     await dependencies.register(Clock.self) { SystemClock() }
    ///     #expect(await dependencies.verify() == [])
    /// }
    /// ```
    ///
    /// The container's cached instances are neither read nor replaced, and resolution counts are left
    /// alone; factories do run.
    ///
    /// > Warning: On ``shared`` it checks the whole current container (``Container/current``), the
    /// > registrations of ``Registry`` and ``DependencyRegistry`` included, and runs their factories. A
    /// > factory that force-unwraps a missing dependency stops the program here as it would in the app.
    /// > It runs on the actor, never on the main actor, so main-actor factories are not run (see
    /// > ``Container/verify(samples:)``).
    ///
    /// - Parameter samples: Runtime arguments for registrations that need them; those without samples
    ///   are skipped.
    /// - Returns: The problems found, in the order met; empty when the graph resolves cleanly.
    public func verify(samples: SampleArguments = SampleArguments()) -> [DIError] {
        container.verify(samples: samples)
    }

    /// The dependencies among the registrations, observed by resolving each one in a throwaway scope as
    /// ``verify(samples:)`` does: ``Container/dependencyGraph(samples:)`` of the actor's container.
    ///
    /// ```swift
    /// let graph = await DIActor.shared.dependencyGraph()
    /// print(graph.mermaid)   // graph TD ...
    /// ```
    ///
    /// > Warning: Factories run while the graph is observed, so their side effects happen; call it from
    /// > tests and diagnostics, not on a hot path.
    ///
    /// - Parameter samples: Runtime arguments for registrations that need them; those without samples
    ///   are skipped.
    /// - Returns: The nodes and edges observed, with ``DependencyGraph/mermaid`` and
    ///   ``DependencyGraph/dot`` renderings.
    public func dependencyGraph(samples: SampleArguments = SampleArguments()) -> DependencyGraph {
        container.dependencyGraph(samples: samples)
    }
}

// MARK: - The container underneath

extension DIActor {
    /// The container behind ``engine``: for ``shared``, the calling task's current container. Read it
    /// once per call, and use that container for the whole call.
    nonisolated var container: Container {
        engine.container
    }

    /// Registers `factory` as `type` in `scope`. The registration is made and its scope set under the
    /// container's lock, so that no resolve, on the actor or through the bridge, finds it half
    /// configured.
    nonisolated func add<T: Sendable>(
        _ type: T.Type,
        scope: ObjectScope,
        factory: @escaping @Sendable () -> T
    ) -> DIActorRegistration {
        let container = container
        return container.withHierarchyLock {
            let entry = container.register(type) { _ in factory() }.inObjectScope(scope)
            return DIActorRegistration(entry, in: container)
        }
    }

    /// The handler returned to the caller: it removes `registration` on the actor, if the actor still
    /// exists.
    private func releaseHandler(for registration: DIActorRegistration) -> @Sendable () async -> Void {
        { [weak self] in
            await self?.remove(registration)
        }
    }

    private func remove(_ registration: DIActorRegistration) {
        registration.remove()
    }
}

/// The one registration a release handler removes, in the container it was made in.
final class DIActorRegistration: @unchecked Sendable {
    // @unchecked: every field is assigned once, in `init`, and only read after that (loading a weak
    // reference is thread-safe). The entry is only touched under the container's lock.

    /// The registration, by its key and its identity (``AnyServiceEntry/graphRecordKey``) rather than by
    /// a reference: a weak reference would give the entry a side table, and every resolve of it would
    /// then retain and release it on the runtime's slow path (`actor-resolve` row). Once the entry is
    /// replaced or removed, the key leads elsewhere and the handler has nothing left to remove.
    private let key: ServiceKey
    private let identity: UInt64
    /// Weak: the handler does not keep a container alive. For ``DIActor/shared`` it is the container
    /// that was current where the registration was made, not where the handler is called.
    private weak var container: Container?

    /// The caller holds the hierarchy's lock.
    init(_ entry: any AnyServiceEntry, in container: Container) {
        key = entry.key
        identity = entry.graphRecordKey
        self.container = container
    }

    /// Removes the entry from its container if it is still the one registered under its key, and drops
    /// its instance; does nothing otherwise.
    func remove() {
        guard let container else { return }
        container.withHierarchyLock {
            guard let entry = container.ownEntry(for: key), entry.graphRecordKey == identity else { return }
            _ = container.unregister(entry)
        }
    }
}

extension Container {
    /// The container that ``Registry``, ``DependencyRegistry``, the property wrappers and
    /// ``DIActor/shared`` use right now: the one bound by the innermost ``withCurrent(_:operation:)``
    /// around this code, or else the process-wide default container.
    ///
    /// ```swift
    /// DependencyRegistry.register { Clock() as TimeSource }
    /// print(Container.current.registeredCount()) // 1: the default container holds it
    /// ```
    ///
    /// The default container is created on first use and lives as long as the process. Every facade
    /// call reaches it under its hierarchy's recursive lock, so registering into it and resolving from
    /// it is safe from any thread or task.
    ///
    /// > Warning: The container returned is the engine itself, with no lock around it. Registering on it
    /// > is safe (registration takes the lock), but resolve from other threads through
    /// > `Container.current.synchronize()`, never on the container directly.
    public static var current: Container {
        FrontContext.current.container
    }

    /// Makes `container` the current container while `operation` runs: every ``Registry``,
    /// ``DependencyRegistry``, `@Inject`, `@OptionalInject` and `@LazyInject` call inside it, and every
    /// call of ``DIActor/shared``, ``DIActorBridge`` and ``DIActorGlobalAPI``, registers into and
    /// resolves from `container` instead of the process-wide default.
    ///
    /// The binding is task-local: it holds on the thread or task that calls this, and is inherited by
    /// the child tasks `operation` creates, but not by unrelated tasks. That is how tests that run in
    /// parallel each get a graph of their own:
    ///
    /// ```swift
    /// @Test func greetsInFrench() {
    ///     Container.withCurrent(Container()) {
    ///         DependencyRegistry.register { FrenchGreeter() as Greeter }
    ///         #expect(Welcome().text == "Bonjour")
    ///     }
    /// }
    /// ```
    ///
    /// A property wrapper remembers the container that was current when it was initialized, so a
    /// `@LazyInject` read after `operation` returned still resolves from `container`: the wrapper keeps
    /// `container` alive until it has resolved. The one exception is a wrapper initialized while
    /// `container`'s hierarchy is creating an instance (inside a factory), which holds it weakly; see
    /// ``LazyInject``.
    ///
    /// > Warning: Pass a root container made for the purpose. Registry startup state and
    /// > `DependencyRegistry` bookkeeping belong to the container passed here, and a container is
    /// > shared with everyone else who holds it: binding the same container in two parallel tests
    /// > shares their graphs.
    ///
    /// - Parameters:
    ///   - container: The container to register into and resolve from inside `operation`.
    ///   - operation: The code to run with `container` current.
    /// - Returns: What `operation` returns.
    public static func withCurrent<Result>(
        _ container: Container,
        operation: () throws -> Result
    ) rethrows -> Result {
        try FrontContext.$bound.withValue(FrontContext(container), operation: operation)
    }

    /// Makes `container` the current container while the asynchronous `operation` runs, and in the
    /// child tasks it creates.
    ///
    /// ```swift
    /// @Test func loadsTheProfile() async throws {
    ///     try await Container.withCurrent(Container()) {
    ///         DependencyRegistry.register { StubProfileAPI() as ProfileAPI }
    ///         let profile = try await ProfileModel().load()
    ///         #expect(profile.name == "Ada")
    ///     }
    /// }
    /// ```
    ///
    /// > Warning: A task started with `Task.detached` inside `operation` does not inherit the binding
    /// > and sees the default container; a plain `Task { }` and task-group children do inherit it.
    ///
    /// - Parameters:
    ///   - container: The container to register into and resolve from inside `operation`.
    ///   - isolation: The actor `operation` runs on; the caller's, by default.
    ///   - operation: The code to run with `container` current.
    /// - Returns: What `operation` returns.
    public static func withCurrent<Result>(
        _ container: Container,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        try await FrontContext.$bound.withValue(FrontContext(container), operation: operation, isolation: isolation)
    }

    /// Configures ``current``, the container ``DIActor/shared``, ``Registry``, ``DependencyRegistry`` and
    /// the property wrappers share: the process-wide default container, or inside
    /// ``withCurrent(_:operation:)`` the container bound there.
    ///
    /// ```swift
    /// await Container.bootstrap { container in
    ///     container.register(Logger.self) { _ in ConsoleLogger() }
    ///         .inObjectScope(.container)
    /// }
    /// let logger = await DIActor.shared.resolve(Logger.self)
    /// ```
    ///
    /// `configure` runs holding the container's lock, as every front's registration does: a thread or
    /// task that resolves from the container meanwhile waits until `configure` returns, and so sees each
    /// registration with its whole configuration (its scope, its `initCompleted` actions), never one
    /// still being set up. Nothing is created here: call ``warmUp()`` on ``current`` afterwards to
    /// create the `.container` instances at once.
    ///
    /// > Warning: Keep `configure` to registering: it must not wait for another thread or task that
    /// > uses the container, which waits for the lock `configure` holds.
    ///
    /// - Parameter configure: Registers the app's services into the container.
    public static func bootstrap(_ configure: @Sendable (Container) -> Void) async {
        let context = FrontContext.current
        context.withLock {
            configure(context.container)
        }
    }
}

/// What the fronts (``Registry``, ``DependencyRegistry``, the property wrappers) hold of one container:
/// a synchronized view to resolve through, and the fronts' own bookkeeping for that container.
///
/// It is `Sendable` because everything it reaches is: the view serializes every use of the container
/// under the hierarchy's recursive lock, and the bookkeeping is guarded by that same lock.
@usableFromInline
final class FrontContext: Sendable {
    /// The context bound by `Container.withCurrent`, if any.
    @TaskLocal static var bound: FrontContext?

    /// The context of the process-wide default container, made on first use (`static let` is lazy and
    /// thread-safe) and never released.
    static let standard = FrontContext(Container())

    /// The context the facades use now.
    @usableFromInline
    static var current: FrontContext {
        bound ?? standard
    }

    /// The view every resolve goes through.
    @usableFromInline let resolver: SynchronizedResolver

    /// The view ``DIActor/shared`` resolves through. The first time the shared actor fronts this
    /// container, the container starts counting its resolves for the actor's status report
    /// (``Container/countsResolutions``), as an actor's own container does from its creation.
    @usableFromInline
    var actorResolver: SynchronizedResolver {
        let hierarchy = container.hierarchy
        withState { state in
            if !state.frontedByActor {
                state.frontedByActor = true
                hierarchy.countsResolutions = true
            }
        }
        return resolver
    }
    /// The fronts' bookkeeping for this container, shared by every context made for it.
    private let book: FrontBook

    init(_ container: Container) {
        resolver = container.synchronize()
        book = FrontBook.of(container)
    }

    /// The container. Use it only under ``withLock(_:)``, or through ``resolver``.
    @inlinable
    var container: Container {
        resolver.container
    }

    /// Runs `body` under the hierarchy's recursive lock: the lock of every resolve, every registration
    /// and of the fronts' bookkeeping for this container.
    func withLock<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        // Other threads wait for the lock, so they see the registrations a front makes in `body` whole.
        try container.hierarchy.withLock(body)
    }

    /// Reads or changes the fronts' bookkeeping under the hierarchy's lock.
    ///
    /// `body` must not call back into user code or into the facades, and must not release a
    /// registration or an instance (whose deinit is user code): the state is held exclusively while it
    /// runs, and a second access from inside would stop the program ("Simultaneous accesses"). That is
    /// why the state holds no entries and no instances: only plain data.
    func withState<T>(_ body: (inout FrontState) -> T) -> T {
        book.withState(body)
    }

    /// Runs `body` with this context current, so that a factory that calls a facade (say
    /// `DependencyRegistry.resolve()`) resolves from the container that is creating its instance, even
    /// when a property wrapper resolves lazily outside the `withCurrent` it was created in.
    func activated<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        if FrontContext.current === self {
            return try body()
        }
        return try FrontContext.$bound.withValue(self) {
            Swift.Result { () throws(Failure) in try body() }
        }.get()
    }

    // MARK: - Resolving

    /// The shared (`.global`) instance registered directly under `serviceType` and `name`, if it exists
    /// and nothing else is to be done first: no registration pending, no resolve observed, no `.lazy`
    /// ``Registry`` service in the hierarchy. What the property wrappers take before anything else,
    /// inlined into the caller: the lock, one lookup and a load (`inject` row).
    @inlinable
    func existingSharedInstance<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
        container.existingSharedInstance(
            ServiceKey(serviceType: Service.self, name: name, argumentsType: Void.self, argumentCount: 0),
            unlessLazyFrontServices: true
        )
    }

    /// Resolves `serviceType` under `name`: the instance the registration's scope holds for `.global`,
    /// a new one for `.unique`.
    func resolve<Service>(_ serviceType: Service.Type, name: String?, scope: Scope) throws(DIError) -> Service {
        try activated { () throws(DIError) in
            switch scope {
            case .global:
                // The typed path: this code is not specialized for `Service`, and the erased attempt of
                // the `Resolver` overloads costs more unspecialized (`inject` row: 4,752 to 3,944).
                try resolver.resolveTyped(serviceType, name: name)
            case .unique:
                try resolveNew(serviceType, name: name)
            }
        }
    }

    /// A new instance of `serviceType` under `name`. For an `Optional` type that is not registered as
    /// such, a new instance of the wrapped type, wrapped; `nil` when that is not registered either.
    func resolveNew<Service>(_ serviceType: Service.Type, name: String?) throws(DIError) -> Service {
        try withLock { () throws(DIError) in
            if let optional = Service.self as? any UniqueOptional.Type,
                container.slot(for: ServiceKey(serviceType: Service.self, name: name)) == nil
            {
                return try optional.resolveNewWrapped(name: name, in: self) as! Service
            }
            return try container.resolveNew(serviceType, name: name, resolver: resolver)
        }
    }

    /// Resolves, or stops the program with a message naming the service, the id, the registrations
    /// nearby and how to fix it. `caller` names the front in that message, as `@Inject`.
    func resolveOrStop<Service>(
        _ serviceType: Service.Type,
        name: String?,
        scope: Scope,
        caller: String
    ) -> Service {
        do {
            return try resolve(serviceType, name: name, scope: scope)
        } catch {
            stop(error, resolving: serviceType, name: name, caller: caller)
        }
    }

    /// Resolves, or returns `nil` when nothing is registered for `serviceType` under `name`. Any other
    /// failure (a cycle, a missing dependency of the service) stops the program, as it is a bug.
    func resolveIfRegistered<Service>(
        _ serviceType: Service.Type,
        name: String?,
        scope: Scope,
        caller: String
    ) -> Service? {
        do {
            return try resolve(serviceType, name: name, scope: scope)
        } catch {
            let asked = ServiceKey(serviceType: serviceType, name: name)
            if case .notRegistered(let missing, _, _) = error, missing == asked {
                return nil
            }
            stop(error, resolving: serviceType, name: name, caller: caller)
        }
    }

    /// Stops the program with the engine's explanation of `error` and the fronts' way to fix it.
    func stop(_ error: DIError, resolving serviceType: Any.Type, name: String?, caller: String) -> Never {
        let id = name.map { " (service id \"\($0)\")" } ?? ""
        var lines = ["Keystone: \(caller) could not resolve \(serviceType)\(id)."]
        lines.append(error.description)
        if case .notRegistered = error {
            let argument = name.map { ", serviceId: \"\($0)\"" } ?? ""
            lines.append(
                "With Keystone's fronts: register it in a RegistryModule's onStartup() with "
                    + "register(\(serviceType).self\(argument)) { ... }, or with DependencyRegistry.register { ... }; "
                    + "a service id is the registration's name. Use @OptionalInject or DependencyRegistry.optional() "
                    + "for a dependency that may be missing."
            )
            if Registry.rootModule != nil, withState({ $0.registry.phase }) == .stopped {
                lines.append("Note: Registry.performStartup() has not run in the current container.")
            }
        }
        fatalError(lines.joined(separator: "\n"))
    }
}

/// The fronts' bookkeeping for one container: Registry startup state, and the order in which the fronts
/// registered. What a front knows of each of its registrations is on the registration's entry (a
/// ``FrontRecord``), not here: the state holds plain data only, never an entry or an instance.
struct FrontState {
    var registry = RegistryState()
    /// Whether ``DIActor/shared`` has fronted the container: it turns counting on once, and leaves
    /// the setting to the app afterwards.
    var frontedByActor = false
    /// The order the next registration a front makes gets.
    private var nextOrder = 0

    /// Returns the next registration order, and counts it.
    mutating func takeOrder() -> Int {
        defer { nextOrder += 1 }
        return nextOrder
    }
}

/// An `Optional` asked for with `.unique`: it is made new by making its wrapped type new.
private protocol UniqueOptional {
    /// A new instance of the wrapped type under `name` from `context`, or `nil` when the wrapped type is
    /// not registered under `name`.
    static func resolveNewWrapped(name: String?, in context: FrontContext) throws(DIError) -> Self
}

extension Optional: UniqueOptional {
    fileprivate static func resolveNewWrapped(name: String?, in context: FrontContext) throws(DIError) -> Self {
        do {
            return .some(try context.resolveNew(Wrapped.self, name: name))
        } catch {
            if case .notRegistered(let missing, _, _) = error,
                missing == ServiceKey(serviceType: Wrapped.self, name: name)
            {
                return nil
            }
            throw error
        }
    }
}

/// The fronts' bookkeeping for one container, behind that container's hierarchy lock.
final class FrontBook: @unchecked Sendable {
    // @unchecked: `state` is read and written only inside `withState`, under `hierarchy`'s recursive
    // lock, the lock that also guards the container the state describes. `hierarchy` is Sendable.

    private let hierarchy: Hierarchy
    private var state = FrontState()

    private init(hierarchy: Hierarchy) {
        self.hierarchy = hierarchy
    }

    func withState<T>(_ body: (inout FrontState) -> T) -> T {
        hierarchy.withLock { body(&state) }
    }

    /// The book of `container`, made on first use and kept by the container itself: a context made for
    /// the same container again (a second `withCurrent`) finds the same Registry startup state, and the
    /// book, with the registrations it remembers, goes when the container goes.
    static func of(_ container: Container) -> FrontBook {
        container.withHierarchyLock {
            if let book = container.frontBook as? FrontBook {
                return book
            }
            let book = FrontBook(hierarchy: container.hierarchy)
            container.frontBook = book
            return book
        }
    }
}

/// A static facade for registering and resolving by type inference: register an instantiator per
/// service, resolve wherever the type is known.
///
/// ```swift
/// typealias DI = DependencyRegistry
///
/// DI.register { () -> Analytics in ConsoleAnalytics() }
/// DI.register { () -> Checkout in Checkout(analytics: DI.resolve()) }
///
/// let checkout: Checkout = DI.resolve()
/// let maybe: Coupons? = DI.optional()          // nil: nothing registered
/// ```
///
/// Every call goes to ``Container/current``: the process-wide default container, or the container a
/// test bound with ``Container/withCurrent(_:operation:)``. Registrations land in the engine
/// ``Container`` (in the scope that shares class instances only), so they are visible to ``Registry``,
/// `@Inject` and plain `container.resolve` alike. Every call takes the container's lock, so the facade
/// may be used from any thread.
///
/// Rules:
/// - `.global` (the default ``Scope``) shares one instance of a class per container, created on first
///   resolve; a value type is created anew on every resolve.
/// - `.unique` creates a new instance on every resolve and does not keep it.
/// - Registering the same type again replaces the earlier registration and drops the instance it shared:
///   the next `.global` resolve creates one from the new instantiator.
/// - Registering an `Optional` type makes that type always resolve to `nil`; the instantiator is not called.
/// - An instance that conforms to ``PostConstruct`` is post-constructed once, when it is created.
///
/// > Warning: ``resolve(scope:)`` stops the program when the type is not registered; the message names
/// > the type and the registrations nearby. Use ``optional(scope:)`` for dependencies that may be missing.
public enum DependencyRegistry {
    /// Makes an instance of a service: what ``register(instantiator:)`` stores and a resolve calls.
    ///
    /// ```swift
    /// let makeClock: DependencyRegistry.Instantiator<Clock> = { SystemClock() }
    /// DependencyRegistry.register(instantiator: makeClock)
    /// ```
    public typealias Instantiator<Service> = () -> Service

    /// Registers how to make `Service`, the instantiator's return type; nothing is created until a
    /// resolve asks for it.
    ///
    /// ```swift
    /// DependencyRegistry.register { () -> Analytics in ConsoleAnalytics() }
    /// DependencyRegistry.register { () -> Checkout in Checkout(analytics: DependencyRegistry.resolve()) }
    /// ```
    ///
    /// Registering `Service` again replaces the earlier instantiator and drops the instance it shared, so
    /// `.global` and `.unique` resolves both use the new one from then on.
    ///
    /// > Warning: Write the return type (`{ () -> Analytics in ... }`) when registering a protocol: an
    /// > inferred concrete type registers the class, not the protocol, and `resolve() as Analytics` then
    /// > finds nothing. Registering an `Optional` type (`{ () -> Analytics? in ... }`) always resolves to `nil`.
    ///
    /// - Parameter instantiator: Makes an instance; it may resolve its own dependencies with ``resolve(scope:)``.
    public static func register<Service>(instantiator: @escaping Instantiator<Service>) {
        let context = FrontContext.current
        let make = absentIfOptional(Service.self) ?? instantiator
        context.withLock {
            let order = context.withState { $0.takeOrder() }
            // The registration it replaces is released here, outside the bookkeeping's exclusive access:
            // whatever its instantiator captured may have a deinit that uses a front.
            let entry = context.container.register(Service.self) { _ in make() }
                .inObjectScope(.sharedReferences)
                .initCompleted(postConstructAction(for: Service.self))
            entry.front = FrontRecord(maker: .dependencyRegistry, lifecycle: .injection, order: order) { _ in }
        }
    }

    /// Resolves the registered service whose type the call site expects.
    ///
    /// ```swift
    /// let analytics: Analytics = DependencyRegistry.resolve()
    /// let fresh: Analytics = DependencyRegistry.resolve(scope: .unique)
    ///
    /// init(analytics: Analytics = DependencyRegistry.resolve()) { ... }
    /// ```
    ///
    /// > Warning: Stops the program when `Service` is not registered, with a message that names it and the
    /// > registrations nearby. Use ``optional(scope:)`` when the dependency may be missing.
    ///
    /// - Parameter scope: `.global` for the shared instance (a class's one instance; a value type is new
    ///   each time), `.unique` for a new instance.
    /// - Returns: The instance.
    public static func resolve<Service>(scope: Scope = .global) -> Service {
        FrontContext.current.resolveOrStop(
            Service.self,
            name: nil,
            scope: scope,
            caller: "DependencyRegistry.resolve()"
        )
    }

    /// Resolves the registered service whose type the call site expects, or `nil` when it is not registered.
    ///
    /// ```swift
    /// let coupons: Coupons? = DependencyRegistry.optional()
    /// let draft: OrderDraft? = DependencyRegistry.optional(scope: .unique)
    /// ```
    ///
    /// > Warning: Only a missing registration of `Service` itself gives `nil`. A registered service whose
    /// > instantiator fails (it resolves something missing, or forms a cycle) still stops the program: that
    /// > is a bug, not an absent dependency.
    ///
    /// - Parameter scope: `.global` for the shared instance, `.unique` for a new one.
    /// - Returns: The instance, or `nil` if `Service` is not registered.
    public static func optional<Service>(scope: Scope = .global) -> Service? {
        FrontContext.current.resolveIfRegistered(
            Service.self,
            name: nil,
            scope: scope,
            caller: "DependencyRegistry.optional()"
        )
    }

    /// Removes every registration made with ``register(instantiator:)`` in the current container, with the
    /// instances they share.
    ///
    /// The registrations it removes are those of the current container itself whose entry says
    /// `DependencyRegistry` made them; a registration this facade made and that was replaced since is
    /// already gone, with what its instantiator captured.
    ///
    /// ```swift
    /// DependencyRegistry.register { () -> Analytics in ConsoleAnalytics() }
    /// DependencyRegistry.reset()
    /// let analytics: Analytics? = DependencyRegistry.optional() // nil
    /// ```
    ///
    /// Registrations made through ``Registry`` modules or on the container directly stay, and so does a
    /// registration that has since replaced one made here.
    ///
    /// > Warning: Objects that already hold resolved instances keep them. In tests, prefer a container of
    /// > your own per test (``Container/withCurrent(_:operation:)``) to resetting the shared one.
    public static func reset() {
        let context = FrontContext.current
        context.withLock {
            // The entries are collected first and removed after: the table is never changed while it is
            // walked.
            let entries = context.container.frontEntries { $0.maker == .dependencyRegistry }
            for entry in entries {
                context.container.unregister(entry)
            }
        }
    }

    /// For an `Optional` service type, an instantiator that always returns `nil`.
    private static func absentIfOptional<Service>(_ serviceType: Service.Type) -> Instantiator<Service>? {
        guard let optional = serviceType as? any AbsentValue.Type else { return nil }
        return { optional.absent as! Service }
    }
}

/// A type with a value that stands for "nothing": `Optional`, whose registrations resolve to `nil`.
private protocol AbsentValue {
    static var absent: Self { get }
}

extension Optional: AbsentValue {
    fileprivate static var absent: Self { nil }
}

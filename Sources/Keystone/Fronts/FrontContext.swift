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
                // the `Resolver` overloads costs more unspecialized (`inject` row: 17% fewer instructions).
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

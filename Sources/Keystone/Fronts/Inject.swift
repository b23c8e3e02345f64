/// Injects a service into a property when its owner is created, from ``Container/current``.
///
/// ```swift
/// final class ProfileViewModel {
///     @Inject var api: ProfileAPI                     // the registered ProfileAPI
///     @Inject("avatars") var images: ImageLoader      // registered with serviceId "avatars"
///     @Inject(scope: .unique) var draft: ProfileDraft // a new instance for this view model
/// }
/// ```
///
/// The service is resolved when the property is initialized, except a ``Registry`` service registered
/// with the `.lazy` lifecycle, which is resolved when the property is first read. The lifecycle is that
/// of the registration the property would resolve, in the current container or one of its ancestors.
/// Either way it comes from the container that was current when the owner was created, even when read
/// later elsewhere; until a deferred property resolves, it keeps that container as ``LazyInject`` does.
///
/// > Warning: Creating the owner stops the program if the service is not registered, with a message that
/// > names the service, the service id and the registrations of the same type under other ids. Use
/// > `@OptionalInject` for a dependency that may be missing.
@propertyWrapper
public struct Inject<Service> {
    @usableFromInline let injection: Injection<Service>

    /// Injects the service registered for the property's type.
    ///
    /// ```swift
    /// @Inject var api: ProfileAPI
    /// ```
    @inlinable
    public init() {
        self.init(serviceId: nil, scope: .global)
    }

    /// Injects the service registered for the property's type under `serviceId`.
    ///
    /// ```swift
    /// @Inject("avatars") var images: ImageLoader
    /// ```
    ///
    /// - Parameter serviceId: The service id the service was registered with.
    @inlinable
    public init(_ serviceId: String) {
        self.init(serviceId: serviceId, scope: .global)
    }

    /// Injects the service registered for the property's type, shared (`.global`) or new (`.unique`).
    ///
    /// ```swift
    /// @Inject(scope: .unique) var draft: ProfileDraft
    /// ```
    ///
    /// - Parameter scope: `.global` for the shared instance, `.unique` for a new one.
    @inlinable
    public init(scope: Scope) {
        self.init(serviceId: nil, scope: scope)
    }

    /// Inlined, so that a `.global` service whose shared instance exists comes back from code compiled
    /// for `Service` (see ``FrontContext/existingSharedInstance(_:name:)``); anything else takes
    /// ``inject(serviceId:scope:from:)``.
    @inlinable
    init(serviceId: String?, scope: Scope) {
        let context = FrontContext.current
        if scope == .global, let service: Service = context.existingSharedInstance(Service.self, name: serviceId) {
            injection = .ready(service)
        } else {
            injection = Self.inject(serviceId: serviceId, scope: scope, from: context)
        }
    }

    /// Resolves the service now, or defers it for a `.lazy` ``Registry`` service.
    @usableFromInline
    static func inject(serviceId: String?, scope: Scope, from context: FrontContext) -> Injection<Service> {
        // The closure for a deferred resolve is made only when it is needed: a closure that captures the
        // id and scope costs an allocation, which an immediate injection does not need to pay.
        context.withLock {
            if Registry.isLazy(Service.self, name: serviceId, in: context) {
                return .deferred(
                    DeferredResolution(property: serviceId, from: context) { context in
                        context.resolveOrStop(Service.self, name: serviceId, scope: scope, caller: "@Inject")
                    }
                )
            }
            return .ready(context.resolveOrStop(Service.self, name: serviceId, scope: scope, caller: "@Inject"))
        }
    }

    /// The injected service.
    ///
    /// ```swift
    /// let profile = try await api.profile()
    /// ```
    public var wrappedValue: Service {
        switch injection {
        case .ready(let service): service
        case .deferred(let deferred): deferred.propertyValue
        }
    }
}

extension Inject: Sendable where Service: Sendable {}

/// A property wrapper's service: resolved already, or to resolve on first read.
@usableFromInline
enum Injection<Value> {
    case ready(Value)
    case deferred(DeferredResolution<Value>)
}

extension Injection: Sendable where Value: Sendable {}

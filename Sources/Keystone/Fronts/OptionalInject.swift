/// Injects a service that may not be registered: `nil` when it is not.
///
/// ```swift
/// final class CheckoutViewModel {
///     @OptionalInject var coupons: CouponService?              // nil without a registration
///     @OptionalInject("beta") var experiment: Experiment?
///     @OptionalInject(scope: .unique) var draft: OrderDraft?
/// }
/// ```
///
/// Resolved when the property is initialized, like `@Inject`, except a ``Registry`` service with the
/// `.lazy` lifecycle, which is resolved when the property is first read (keeping its container as
/// ``LazyInject`` does until then). With `scope: .unique`, an Optional service type gets a new instance
/// of the wrapped type too.
///
/// > Warning: Only a missing registration gives `nil`. A registered service that cannot be created (its
/// > factory resolves something missing, or forms a cycle) stops the program, as `@Inject` does.
@propertyWrapper
public struct OptionalInject<Service> {
    private let injection: Injection<Service?>

    /// Injects the service registered for the property's wrapped type, or `nil`.
    ///
    /// ```swift
    /// @OptionalInject var coupons: CouponService?
    /// ```
    public init() {
        self.init(serviceId: nil, scope: .global)
    }

    /// Injects the service registered for the property's wrapped type under `serviceId`, or `nil`.
    ///
    /// ```swift
    /// @OptionalInject("beta") var experiment: Experiment?
    /// ```
    ///
    /// - Parameter serviceId: The service id the service was registered with.
    public init(_ serviceId: String) {
        self.init(serviceId: serviceId, scope: .global)
    }

    /// Injects the service registered for the property's wrapped type, shared (`.global`) or new
    /// (`.unique`), or `nil`.
    ///
    /// ```swift
    /// @OptionalInject(scope: .unique) var draft: OrderDraft?
    /// ```
    ///
    /// - Parameter scope: `.global` for the shared instance, `.unique` for a new one.
    public init(scope: Scope) {
        self.init(serviceId: nil, scope: scope)
    }

    private init(serviceId: String?, scope: Scope) {
        let context = FrontContext.current
        injection = context.withLock {
            if Registry.isLazy(Service.self, name: serviceId, in: context) {
                return .deferred(
                    DeferredResolution(property: serviceId, from: context) { context in
                        context.resolveIfRegistered(
                            Service.self,
                            name: serviceId,
                            scope: scope,
                            caller: "@OptionalInject"
                        )
                    }
                )
            }
            return .ready(
                context.resolveIfRegistered(Service.self, name: serviceId, scope: scope, caller: "@OptionalInject")
            )
        }
    }

    /// The injected service, or `nil` if it is not registered.
    ///
    /// ```swift
    /// coupons?.apply(to: cart)
    /// ```
    public var wrappedValue: Service? {
        switch injection {
        case .ready(let service): service
        case .deferred(let deferred): deferred.propertyValue
        }
    }
}

extension OptionalInject: Sendable where Service: Sendable {}

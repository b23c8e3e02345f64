/// A service that finishes setting itself up after it is created, once its instance is stored: the
/// place to do what `init` cannot, such as registering observers that capture `self`.
///
/// ```swift
/// final class SessionStore: PostConstruct {
///     @Inject var notifications: NotificationHub
///
///     func postConstruct() {
///         notifications.observe(.logout) { [weak self] in self?.clear() }
///     }
/// }
/// ```
///
/// Keystone calls ``postConstruct()`` once for every instance that ``Registry`` or
/// ``DependencyRegistry`` creates: once for a shared service, on each resolve for `.unique` or for a
/// value type. It runs as an engine `initCompleted` action, after the instance is stored, so resolving
/// the same service from inside it returns this instance instead of forming a cycle.
///
/// > Warning: Instances registered directly on a ``Container`` are not post-constructed; add
/// > `.initCompleted { _, service in service.postConstruct() }` to such a registration yourself.
public protocol PostConstruct {
    /// Finishes setting up the instance; called once, right after it is created and stored.
    ///
    /// ```swift
    /// func postConstruct() {
    ///     cache.warmUp()
    /// }
    /// ```
    func postConstruct()
}

/// The `initCompleted` action the fronts add to each registration they make: it calls
/// ``PostConstruct/postConstruct()`` on instances that conform.
func postConstructAction<Service>(for serviceType: Service.Type) -> (any Resolver, Service) -> Void {
    { _, service in
        (service as? any PostConstruct)?.postConstruct()
    }
}

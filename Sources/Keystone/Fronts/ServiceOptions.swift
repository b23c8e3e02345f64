/// The options of a service registered by a ``RegistryModule``: when it is realized.
///
/// Every registration call of a module returns one; change the lifecycle by chaining:
///
/// ```swift
/// static func onStartup() {
///     register { SearchIndex() }.lifecycle(.eager)
///     eager { Metrics() }.lifecycle(.lazy)        // the last call wins
/// }
/// ```
///
/// > Warning: The options belong to the registration that returned them. Once the same type and service
/// > id is registered again, changing them has no effect.
public struct ServiceOptions {
    /// When a ``Registry`` service is realized (created). Every lifecycle shares the instance once it exists.
    ///
    /// ```swift
    /// register { Analytics() }.lifecycle(.lazy)
    /// ```
    ///
    /// > Warning: `.lazy` defers only the property wrappers (`@Inject`, `@OptionalInject`) to their first
    /// > read. ``Registry/resolve(_:)`` and ``DependencyRegistry`` realize the service when they are called.
    public enum Lifecycle: Sendable, Hashable {
        /// Realized when an `@Inject` property of it is initialized, or ``Registry/resolve(_:)`` asks: the default.
        case injection
        /// Realized when an `@Inject` property of it is first read.
        case lazy
        /// Realized by ``Registry/performStartup()``, after every module's `onStartup`.
        case eager
    }

    let context: FrontContext
    let key: ServiceKey
    /// The identity (``AnyServiceEntry/graphRecordKey``) of the registration these options belong to,
    /// found again under `key`. Not a reference: options kept by the caller must not keep a replaced
    /// registration, and what its factory captured, alive; and a weak reference would give the entry a
    /// side table, making every retain and release of it take the runtime's slow path.
    private let identity: UInt64

    /// The caller holds the hierarchy's lock.
    init(context: FrontContext, key: ServiceKey, entry: any AnyServiceEntry) {
        self.context = context
        self.key = key
        self.identity = entry.graphRecordKey
    }

    /// Changes when the service is realized.
    ///
    /// ```swift
    /// register(Storage.self) { DiskStorage() }.lifecycle(.eager)
    /// ```
    ///
    /// It changes the registration that returned these options, and only while that registration is
    /// still the one in effect: once the same type and service id is registered again, it does nothing.
    ///
    /// > Warning: Making a service `.eager` after ``Registry/performStartup()`` completed realizes it at
    /// > once; making an already realized service `.lazy` changes nothing for it.
    ///
    /// - Parameter lifecycle: `.injection`, `.lazy` or `.eager`.
    /// - Returns: These options, for chaining.
    @discardableResult
    public func lifecycle(_ lifecycle: Lifecycle) -> ServiceOptions {
        Registry.change(key, identity: identity, to: lifecycle, in: context)
        return self
    }
}

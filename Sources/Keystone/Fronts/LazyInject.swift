/// Injects a service resolved on first access, from the container that was current when the property
/// was initialized; the same instance afterwards.
///
/// ```swift
/// final class ReportScreen {
///     @LazyInject var renderer: PDFRenderer           // resolved on first use of `renderer`
///     @LazyInject("draft") var store: DocumentStore
///     @LazyInject(scope: .unique) var scratch: Canvas  // a new instance, made on first use
/// }
/// ```
///
/// Use it to break an initialization cycle between two services, or to defer an expensive one. Unlike
/// `@Inject`, it defers whatever the registration's lifecycle.
///
/// The property holds its container weakly, as `Lazy` does, so that a service the container keeps may
/// have `@LazyInject` properties without keeping the container alive forever.
///
/// > Warning: Reading the property stops the program if the service cannot be resolved by then (it is
/// > not registered, the registry was shut down, or the container was deallocated), with a message that
/// > names the service and id. Keep the container alive while its objects may still read the property;
/// > the process-wide default container always is.
@propertyWrapper
public struct LazyInject<Service> {
    private let deferred: DeferredValue<Service>

    /// Injects the service registered for the property's type.
    ///
    /// ```swift
    /// @LazyInject var renderer: PDFRenderer
    /// ```
    public init() {
        self.init(serviceId: nil, scope: .global)
    }

    /// Injects the service registered for the property's type under `serviceId`.
    ///
    /// ```swift
    /// @LazyInject("draft") var store: DocumentStore
    /// ```
    ///
    /// - Parameter serviceId: The service id the service was registered with.
    public init(_ serviceId: String) {
        self.init(serviceId: serviceId, scope: .global)
    }

    /// Injects the service registered for the property's type, shared (`.global`) or new (`.unique`).
    ///
    /// ```swift
    /// @LazyInject(scope: .unique) var scratch: Canvas
    /// ```
    ///
    /// - Parameter scope: `.global` for the shared instance, `.unique` for a new one.
    public init(scope: Scope) {
        self.init(serviceId: nil, scope: scope)
    }

    private init(serviceId: String?, scope: Scope) {
        deferred = DeferredValue(.current) { context in
            context.resolveOrStop(Service.self, name: serviceId, scope: scope, caller: "@LazyInject")
        }
    }

    /// The service, resolved on first access.
    ///
    /// ```swift
    /// renderer.render(report)
    /// ```
    public var wrappedValue: Service {
        deferred.value
    }
}

extension LazyInject: Sendable where Service: Sendable {}

/// A value resolved from a context on first read, then kept: the storage of the lazy property wrappers.
///
/// The cache is read and written only under the context's hierarchy lock, so an owner shared across
/// threads sees one resolve.
final class DeferredValue<Value> {
    /// The container to resolve from, held weakly: a service the container keeps (a `.container` one)
    /// may hold this value, and a strong reference would keep the container alive forever.
    private weak var container: Container?
    private let hierarchy: Hierarchy
    private let produce: @Sendable (FrontContext) -> Value
    private var cached: Value?

    init(_ context: FrontContext, produce: @escaping @Sendable (FrontContext) -> Value) {
        self.container = context.container
        self.hierarchy = context.container.hierarchy
        self.produce = produce
    }

    var value: Value {
        hierarchy.withLock {
            if let cached {
                return cached
            }
            guard let container else {
                fatalError(
                    "Keystone: a lazily injected \(Value.self) was read after the container it was injected from was "
                        + "deallocated. Fix: keep that container alive as long as the objects it injected."
                )
            }
            let made = produce(FrontContext(container))
            cached = made
            return made
        }
    }
}

extension DeferredValue: @unchecked Sendable where Value: Sendable {
    // @unchecked: `cached` is read and written only in `value`, under the hierarchy's lock; the weak
    // `container` is only read (loading a weak reference is thread-safe), `hierarchy` and `produce` are
    // Sendable `let`s, and a `Value` handed across threads is Sendable.
}

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
/// ### Which container it keeps alive
///
/// Until it has resolved, the property keeps the container it will resolve from alive, so it may be
/// read after ``Container/withCurrent(_:operation:)`` has returned:
///
/// ```swift
/// let screen = Container.withCurrent(testContainer) { ReportScreen() }
/// screen.renderer.render(report)   // resolves from testContainer, still alive
/// ```
///
/// The one exception is a property initialized while that container's hierarchy is creating an
/// instance, that is, inside a factory: the container may then keep the owner (a shared service whose
/// `@LazyInject` properties are set up in its `init`), and a strong reference back would keep both alive
/// forever. Such a property holds its container weakly, as `Lazy` does. Either way, once the property
/// has resolved it keeps only the service, not the container.
///
/// The same rule holds for an `@Inject` or `@OptionalInject` of a ``Registry`` service with the `.lazy`
/// lifecycle, which resolves on first read too.
///
/// > Warning: Reading the property stops the program if the service cannot be resolved by then (it is
/// > not registered, or the registry was shut down), with a message that names the service and id. A
/// > property made inside a factory also stops the program when read after its container was
/// > deallocated: keep that container alive while its objects may still read the property (the
/// > process-wide default container always is). An object made outside any factory and then registered
/// > as an instance of the same container (`register { screen }`) keeps that container alive until the
/// > property is read.
@propertyWrapper
public struct LazyInject<Service> {
    private let deferred: DeferredResolution<Service>

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
        deferred = DeferredResolution(property: serviceId, from: .current) { context in
            context.resolveOrStop(Service.self, name: serviceId, scope: scope, caller: "@LazyInject")
        }
    }

    /// The service, resolved on first access.
    ///
    /// ```swift
    /// renderer.render(report)
    /// ```
    public var wrappedValue: Service {
        deferred.propertyValue
    }
}

extension LazyInject: Sendable where Service: Sendable {}

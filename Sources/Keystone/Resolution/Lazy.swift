/// A service resolved on first use, then kept: resolve `Lazy<Service>` instead of `Service` to
/// defer creating an expensive or circular dependency.
///
/// ```swift
/// container.register(Report.self) { r in Report(renderer: r.resolve(Lazy<Renderer>.self)!) }
/// // ...
/// report.renderer.instance.render()   // the renderer is created here, once
/// ```
///
/// Nothing needs registering for `Lazy`: resolving `Lazy<Renderer>` succeeds when `Renderer` is
/// registered (under the same name and argument types), and fails otherwise. The instance is resolved
/// in the object graph the `Lazy` was created in, so it shares that graph's `.graph` instances that are
/// still alive. A `Lazy` resolves under its container hierarchy's lock, so one obtained through a
/// ``SynchronizedResolver`` may be used from any thread.
///
/// > Warning: ``instance`` stops the program if the service can no longer be resolved (its container was
/// > deallocated, or its registration removed); ``get()`` throws instead.
///
/// > Warning: A Lazy resolved with runtime arguments keeps them and passes them to the factory on the
/// > thread that resolves it. Hand such a Lazy to another thread or task only when its arguments are
/// > `Sendable`: the compiler cannot check them here, since the resolve calls accept any type.
public final class Lazy<Service> {
    private let deferred: DeferredResolution<Service>
    private let graph: GraphIdentifier?

    private init(deferred: DeferredResolution<Service>, graph: GraphIdentifier?) {
        self.deferred = deferred
        self.graph = graph
    }

    /// The service, resolved on first access and the same instance afterwards.
    public var instance: Service {
        do {
            return try get()
        } catch {
            deferred.fail(error, in: "Lazy")
        }
    }

    /// The service, resolved on first call and the same instance afterwards, or why it cannot be.
    public func get() throws(DIError) -> Service {
        try deferred.get(inGraph: graph)
    }
}

extension Lazy: InstanceWrapper {
    static func wrappedKey(of key: ServiceKey) -> ServiceKey? {
        key.with(serviceType: Service.self)
    }

    static func wrap<Arguments>(
        in container: Container,
        key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver
    ) throws(DIError) -> Lazy<Service> {
        let deferred = try DeferredResolution<Service>(
            wrapping: key.with(serviceType: Service.self),
            from: container,
            arguments: arguments,
            resolver: resolver,
            caching: true
        )
        return Lazy(deferred: deferred, graph: DeferredResolution<Service>.currentGraph(of: container))
    }
}

// Sendable as its `DeferredResolution` is: the one unchecked conformance, with the caveat about runtime
// arguments, is there.
extension Lazy: Sendable where Service: Sendable {}

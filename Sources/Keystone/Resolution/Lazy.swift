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
    private var cached: Service?

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
        try deferred.withLock { () throws(DIError) -> Service in
            if let cached {
                return cached
            }
            let resolved = try deferred.resolve(inGraph: graph)
            cached = resolved
            return resolved
        }
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
            from: container,
            key: key.with(serviceType: Service.self),
            arguments: arguments,
            resolver: resolver
        )
        return Lazy(deferred: deferred, graph: DeferredResolution<Service>.currentGraph(of: container))
    }
}

// @unchecked: the Lazy's own state (the resolved instance it caches) is used only under its hierarchy's lock, and its
// container is reached only under that lock too, which a synchronized view's resolves take. What it cannot
// vouch for are the runtime arguments it was resolved with: the resolve overloads take arguments of any
// type (Swinject's spellings), so the compiler cannot require them to be `Sendable`, and the wrapper hands
// them to the factory on whichever thread resolves. The documentation says to pass `Sendable` arguments to
// a Lazy that crosses threads.
extension Lazy: @unchecked Sendable where Service: Sendable {}

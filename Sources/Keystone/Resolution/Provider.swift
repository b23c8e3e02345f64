/// A factory for a service: each access to ``instance`` resolves it again, following its scope.
///
/// ```swift
/// container.register(Importer.self) { r in Importer(makeParser: r.resolve(Provider<Parser>.self)!) }
/// // ...
/// let parser = importer.makeParser.instance   // a new resolve on every access
/// ```
///
/// Nothing needs registering for `Provider`: resolving `Provider<Parser>` succeeds when `Parser` is
/// registered (under the same name and argument types). Each access is a resolve of its own, in the
/// graph being resolved if there is one, else in a new graph. A `Provider` resolves under its container
/// hierarchy's lock, so one obtained through a ``SynchronizedResolver`` may be used from any thread.
///
/// > Warning: ``instance`` stops the program if the service can no longer be resolved (its container was
/// > deallocated, or its registration removed); ``get()`` throws instead.
///
/// > Warning: A Provider resolved with runtime arguments keeps them and passes them to the factory on the
/// > thread that resolves it. Hand such a Provider to another thread or task only when its arguments are
/// > `Sendable`: the compiler cannot check them here, since the resolve calls accept any type.
public final class Provider<Service> {
    private let deferred: DeferredResolution<Service>

    private init(deferred: DeferredResolution<Service>) {
        self.deferred = deferred
    }

    /// A newly resolved instance of the service, as its scope decides.
    public var instance: Service {
        do {
            return try get()
        } catch {
            deferred.fail(error, in: "Provider")
        }
    }

    /// A newly resolved instance of the service, or why it cannot be resolved.
    public func get() throws(DIError) -> Service {
        try deferred.get()
    }
}

extension Provider: InstanceWrapper {
    static func wrappedKey(of key: ServiceKey) -> ServiceKey? {
        key.with(serviceType: Service.self)
    }

    static func wrap<Arguments>(
        in container: Container,
        key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver
    ) throws(DIError) -> Provider<Service> {
        Provider(
            deferred: try DeferredResolution<Service>(
                wrapping: key.with(serviceType: Service.self),
                from: container,
                arguments: arguments,
                resolver: resolver,
                caching: false
            )
        )
    }
}

// Sendable as its `DeferredResolution` is: the one unchecked conformance, with the caveat about runtime
// arguments, is there.
extension Provider: Sendable where Service: Sendable {}

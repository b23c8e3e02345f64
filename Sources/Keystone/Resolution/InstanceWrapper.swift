/// A type that wraps a registered service and is resolved without a registration of its own:
/// `Lazy<Service>`, `Provider<Service>` and `Optional<Service>`.
protocol InstanceWrapper {
    /// The key of the wrapped service, for a wrapper resolved under `key`.
    static func wrappedKey(of key: ServiceKey) -> ServiceKey?

    /// The wrapper resolved under `key` (the wrapper's own type, name and arguments).
    static func wrap<Arguments>(
        in container: Container,
        key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver
    ) throws(DIError) -> Self
}

extension InstanceWrapper {
    static func wrappedKey(of key: ServiceKey) -> ServiceKey? {
        nil
    }
}

extension Optional: InstanceWrapper {
    static func wrap<Arguments>(
        in container: Container,
        key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver
    ) throws(DIError) -> Wrapped? {
        let wrappedKey = key.with(serviceType: Wrapped.self)
        guard container.isRegistered(wrappedKey) || Wrapped.self is any InstanceWrapper.Type else {
            // Asked for as optional: a missing registration is an answer, not a failure.
            return nil
        }
        do {
            let wrapped: Wrapped = try container.resolve(wrappedKey, arguments: arguments, resolver: resolver)
            return wrapped
        } catch {
            if case .notRegistered(let missing, _, _) = error, missing == wrappedKey {
                return nil
            }
            throw error
        }
    }
}

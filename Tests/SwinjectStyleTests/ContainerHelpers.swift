import Keystone

// App-style code: helpers written on `Container` rather than `Resolver`, calling the library's resolves
// from inside; registration helpers that register and resolve in one place.

extension Container {
    /// The registered service, or a crash that names it: for the composition root, where a missing
    /// registration is a programming error.
    func resolveOrCrash<Service>(_ serviceType: Service.Type = Service.self, name: String? = nil) -> Service {
        guard let service = resolve(serviceType, name: name) else {
            fatalError("\(Service.self) is not registered")
        }
        return service
    }

    /// Registers a `.container` singleton and returns the container, for chained setup.
    @discardableResult
    func singleton<Service>(_ serviceType: Service.Type, factory: @escaping (Resolver) -> Service) -> Container {
        register(serviceType, factory: factory).inObjectScope(.container)
        return self
    }

    func resolve<Service>(_ serviceType: Service.Type = Service.self, argument: String, fallback: Service)
        -> Service
    {
        resolve(serviceType, argument: argument) ?? fallback
    }
}

extension Container {
    /// A non-optional resolve with the library's base name, on `Container` only: a call on a container
    /// with the type inferred from the context comes here, before the one on `Resolver`. (The same for
    /// `resolve(_:)` would make every `container.resolve(Animal.self)` whose result type is left open
    /// ambiguous, with Swinject as with Keystone.)
    func resolve<Service, Arg1>(_ serviceType: Service.Type = Service.self, argument: Arg1) -> Service {
        self.resolve(serviceType, argument: argument)!
    }
}

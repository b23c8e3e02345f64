import Keystone

// App-style code: free functions generic over the resolver, protocol compositions, and typealiases
// for the library's protocol.

typealias DependencyResolver = Resolver
typealias SendableResolver = Resolver & Sendable

/// A helper every call site can use, whatever resolver it holds.
func obtain<R: Resolver, Service>(_ serviceType: Service.Type, from resolver: R) -> Service {
    resolver.resolve(serviceType)!
}

func obtain<R: Resolver, Service>(_ serviceType: Service.Type, named name: String, from resolver: R) -> Service {
    resolver.resolve(serviceType, name: name)!
}

func obtain<R, Service, Arg1, Arg2, Arg3>(
    _ serviceType: Service.Type,
    from resolver: R,
    arguments arg1: Arg1,
    _ arg2: Arg2,
    _ arg3: Arg3
) -> Service where R: Resolver {
    resolver.resolve(serviceType, arguments: arg1, arg2, arg3)!
}

/// The same over an existential composition, as code that hands resolvers across tasks writes it.
func obtainShared<Service>(_ serviceType: Service.Type, from resolver: any Resolver & Sendable) -> Service {
    resolver.resolve(serviceType)!
}

extension DependencyResolver {
    /// A non-optional resolve under another base name, written through the typealias.
    func required<Service>(_ serviceType: Service.Type = Service.self, name: String? = nil) -> Service {
        resolve(serviceType, name: name)!
    }

    func required<Service, Arg1>(_ serviceType: Service.Type = Service.self, argument: Arg1) -> Service {
        resolve(serviceType, argument: argument)!
    }
}

extension Resolver where Self: Sendable {
    /// A helper only for resolvers that may cross tasks.
    func resolveForTask<Service>(_ serviceType: Service.Type) -> Service? {
        resolve(serviceType, name: nil)
    }
}

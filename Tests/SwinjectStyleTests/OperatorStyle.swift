import Keystone

// App-style code: a `~>` operator that resolves a service or crashes with its name, in the style of some
// Swinject add-ons: free functions over `Resolver`, one of them generic over the resolver's type.

infix operator ~> : AdditionPrecedence

func ~> <R: Resolver, Service>(resolver: R, serviceType: Service.Type) -> Service {
    guard let service = resolver.resolve(serviceType) else {
        fatalError("\(Service.self) is not registered")
    }
    return service
}

func ~> <Service>(resolver: Resolver, request: (Service.Type, name: String)) -> Service {
    resolver.resolve(request.0, name: request.name)!
}

func ~> <Service, Arg1>(resolver: Resolver, request: (Service.Type, argument: Arg1)) -> Service {
    resolver.resolve(request.0, argument: request.argument)!
}

func ~> <Service, Arg1, Arg2>(resolver: Resolver, request: (Service.Type, arguments: (Arg1, Arg2))) -> Service {
    resolver.resolve(request.0, arguments: request.arguments.0, request.arguments.1)!
}

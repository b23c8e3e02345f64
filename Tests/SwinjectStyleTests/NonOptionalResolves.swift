import Keystone

// App-style code as Swinject users write it: non-optional `resolve` methods on `Resolver`, with the
// service type inferred from the context and the same base names as the library's own resolves. Each
// calls the library's `Optional`-returning resolve of the same spelling, which must be chosen over the
// method it is written in. This file compiles unchanged against Swinject 2.10.0 (`import Swinject`).

// The sample of MigratingFromSwinject.md.
extension Resolver {
    func resolve<Service>(_ serviceType: Service.Type = Service.self, name: String) -> Service {
        guard let service = self.resolve(serviceType, name: name) else {
            fatalError("\(Service.self) named \(name) is not registered")
        }
        return service
    }
}

extension Resolver {
    func resolve<Service>(_ serviceType: Service.Type = Service.self) -> Service {
        guard let service = self.resolve(serviceType) else {
            fatalError("\(Service.self) is not registered")
        }
        return service
    }

    func resolve<Service, Arg1>(_ serviceType: Service.Type = Service.self, argument: Arg1) -> Service {
        self.resolve(serviceType, argument: argument)!
    }

    func resolve<Service, Arg1>(
        _ serviceType: Service.Type = Service.self,
        name: String,
        argument: Arg1
    ) -> Service {
        self.resolve(serviceType, name: name, argument: argument)!
    }

    func resolve<Service, Arg1, Arg2>(
        _ serviceType: Service.Type = Service.self,
        arguments arg1: Arg1,
        _ arg2: Arg2
    ) -> Service {
        guard let service = self.resolve(serviceType, arguments: arg1, arg2) else {
            fatalError("\(Service.self) taking 2 arguments is not registered")
        }
        return service
    }

    func resolve<Service, Arg1, Arg2>(
        _ serviceType: Service.Type = Service.self,
        name: String,
        arguments arg1: Arg1,
        _ arg2: Arg2
    ) -> Service {
        guard let service = self.resolve(serviceType, name: name, arguments: arg1, arg2) else {
            fatalError("\(Service.self) named \(name) taking 2 arguments is not registered")
        }
        return service
    }

    func resolve<Service, Arg1, Arg2, Arg3>(
        _ serviceType: Service.Type = Service.self,
        arguments arg1: Arg1,
        _ arg2: Arg2,
        _ arg3: Arg3
    ) -> Service {
        resolve(serviceType, arguments: arg1, arg2, arg3)!
    }

    func resolve<Service, Arg1, Arg2, Arg3>(
        _ serviceType: Service.Type = Service.self,
        name: String,
        arguments arg1: Arg1,
        _ arg2: Arg2,
        _ arg3: Arg3
    ) -> Service {
        resolve(serviceType, name: name, arguments: arg1, arg2, arg3)!
    }

    func resolve<Service, Arg1, Arg2, Arg3, Arg4>(
        _ serviceType: Service.Type = Service.self,
        arguments arg1: Arg1,
        _ arg2: Arg2,
        _ arg3: Arg3,
        _ arg4: Arg4
    ) -> Service {
        resolve(serviceType, arguments: arg1, arg2, arg3, arg4)!
    }

    func resolve<Service, Arg1, Arg2, Arg3, Arg4>(
        _ serviceType: Service.Type = Service.self,
        name: String,
        arguments arg1: Arg1,
        _ arg2: Arg2,
        _ arg3: Arg3,
        _ arg4: Arg4
    ) -> Service {
        resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4)!
    }

    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(
        _ serviceType: Service.Type = Service.self,
        arguments arg1: Arg1,
        _ arg2: Arg2,
        _ arg3: Arg3,
        _ arg4: Arg4,
        _ arg5: Arg5
    ) -> Service {
        resolve(serviceType, arguments: arg1, arg2, arg3, arg4, arg5)!
    }

    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(
        _ serviceType: Service.Type = Service.self,
        name: String,
        arguments arg1: Arg1,
        _ arg2: Arg2,
        _ arg3: Arg3,
        _ arg4: Arg4,
        _ arg5: Arg5
    ) -> Service {
        resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4, arg5)!
    }

    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(
        _ serviceType: Service.Type = Service.self,
        arguments arg1: Arg1,
        _ arg2: Arg2,
        _ arg3: Arg3,
        _ arg4: Arg4,
        _ arg5: Arg5,
        _ arg6: Arg6
    ) -> Service {
        resolve(serviceType, arguments: arg1, arg2, arg3, arg4, arg5, arg6)!
    }

    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(
        _ serviceType: Service.Type = Service.self,
        name: String,
        arguments arg1: Arg1,
        _ arg2: Arg2,
        _ arg3: Arg3,
        _ arg4: Arg4,
        _ arg5: Arg5,
        _ arg6: Arg6
    ) -> Service {
        resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4, arg5, arg6)!
    }

    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(
        _ serviceType: Service.Type = Service.self,
        arguments arg1: Arg1,
        _ arg2: Arg2,
        _ arg3: Arg3,
        _ arg4: Arg4,
        _ arg5: Arg5,
        _ arg6: Arg6,
        _ arg7: Arg7
    ) -> Service {
        resolve(serviceType, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7)!
    }

    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(
        _ serviceType: Service.Type = Service.self,
        name: String,
        arguments arg1: Arg1,
        _ arg2: Arg2,
        _ arg3: Arg3,
        _ arg4: Arg4,
        _ arg5: Arg5,
        _ arg6: Arg6,
        _ arg7: Arg7
    ) -> Service {
        resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7)!
    }

    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(
        _ serviceType: Service.Type = Service.self,
        arguments arg1: Arg1,
        _ arg2: Arg2,
        _ arg3: Arg3,
        _ arg4: Arg4,
        _ arg5: Arg5,
        _ arg6: Arg6,
        _ arg7: Arg7,
        _ arg8: Arg8
    ) -> Service {
        resolve(serviceType, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8)!
    }

    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(
        _ serviceType: Service.Type = Service.self,
        name: String,
        arguments arg1: Arg1,
        _ arg2: Arg2,
        _ arg3: Arg3,
        _ arg4: Arg4,
        _ arg5: Arg5,
        _ arg6: Arg6,
        _ arg7: Arg7,
        _ arg8: Arg8
    ) -> Service {
        resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8)!
    }

    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(
        _ serviceType: Service.Type = Service.self,
        arguments arg1: Arg1,
        _ arg2: Arg2,
        _ arg3: Arg3,
        _ arg4: Arg4,
        _ arg5: Arg5,
        _ arg6: Arg6,
        _ arg7: Arg7,
        _ arg8: Arg8,
        _ arg9: Arg9
    ) -> Service {
        resolve(serviceType, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9)!
    }

    func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(
        _ serviceType: Service.Type = Service.self,
        name: String,
        arguments arg1: Arg1,
        _ arg2: Arg2,
        _ arg3: Arg3,
        _ arg4: Arg4,
        _ arg5: Arg5,
        _ arg6: Arg6,
        _ arg7: Arg7,
        _ arg8: Arg8,
        _ arg9: Arg9
    ) -> Service {
        resolve(serviceType, name: name, arguments: arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9)!
    }
}

import Keystone

// App-style extensions that Swinject has no counterpart for, or that a careful user might try: a
// throwing resolve with the library's base name, helpers built on `resolveThrows`, a `resolveThrows`
// with an inferred type, `@discardableResult`, and `where` clauses on the extension and the method.

enum LookupError: Error, Equatable {
    case missing(String)
}

extension Resolver {
    func resolve<Service>(_ serviceType: Service.Type = Service.self, orThrow name: String) throws -> Service {
        guard let service = resolve(serviceType, name: name) else {
            throw LookupError.missing(name)
        }
        return service
    }

    func resolveThrows<Service>(inferring name: String? = nil) throws(DIError) -> Service {
        try resolveThrows(Service.self, name: name)
    }

    @discardableResult
    func warmUp<Service>(_ serviceType: Service.Type) -> Service? {
        resolve(serviceType)
    }
}

extension Resolver where Self: AnyObject {
    func resolve<Service: AnyObject>(_ serviceType: Service.Type = Service.self, tagged name: String) -> Service {
        resolve(serviceType, name: name)!
    }
}

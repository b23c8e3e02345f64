import Keystone
import Testing

private struct Offline: Error, CustomStringConvertible {
    var description: String { "the network is offline" }
}

private protocol Service {}
/// Resolved only by the log handler test, whose handler sees every test's failures.
private protocol LoggedService {}
private final class Client: Service {}
private final class Feed {
    let service: Service
    init(service: Service) { self.service = service }
}

@Suite("Errors that explain themselves")
struct ErrorTests {
    @Test("An unregistered type gives notRegistered naming it, with a fix")
    func unregistered() {
        let container = Container()
        #expect(throws: DIError.notRegistered(key: ServiceKey(serviceType: Animal.self), path: [], candidates: [])) {
            try container.resolveThrows(Animal.self)
        }
        let error = container.resolveResult(Animal.self).failure!
        #expect(error.key?.serviceType == Animal.self)
        #expect(error.description.contains("No registration for Animal."))
        #expect(error.description.contains("container.register(Animal.self)"))
    }

    @Test("A wrong name lists the registered names of the type, from the container and its ancestors")
    func wrongNameListsCandidates() {
        let parent = Container()
        parent.register(Animal.self, name: "cat") { _ in Cat(name: "Mimi") }
        let child = Container(parent: parent)
        child.register(Animal.self, name: "dog") { _ in Dog(name: "Hachi") }
        child.register(Animal.self) { _, name in Horse(name: name) }

        let error = child.resolveResult(Animal.self, name: "horse").failure!
        guard case .notRegistered(let key, _, let candidates) = error else {
            Issue.record("expected notRegistered, got \(error)")
            return
        }
        #expect(key.name == "horse")
        #expect(
            Set(candidates) == [
                ServiceKey(serviceType: Animal.self, name: "cat"),
                ServiceKey(serviceType: Animal.self, name: "dog"),
                ServiceKey(serviceType: Animal.self, argumentsType: String.self),
            ]
        )
        #expect(error.description.contains("Animal named \"cat\""))
        #expect(error.description.contains("Animal with arguments (String)"))
    }

    @Test("A missing nested dependency reports the path that needed it")
    func nestedMissingDependency() {
        let container = Container()
        container.register(Feed.self) { r in Feed(service: try r.resolveThrows(Service.self)) }
        container.register(Person.self) { r in
            _ = try r.resolveThrows(Feed.self)
            return PetOwner(name: "Stephen", pet: Cat(name: "Mimi"))
        }
        let expected = DIError.notRegistered(
            key: ServiceKey(serviceType: Service.self),
            path: [ServiceKey(serviceType: Person.self), ServiceKey(serviceType: Feed.self)],
            candidates: []
        )
        #expect(throws: expected) { try container.resolveThrows(Person.self) }
        #expect(String(describing: expected).contains("Needed by: Person -> Feed -> Service."))
    }

    @Test("A factory that throws gives factoryFailed with its key, path and error")
    func factoryFailed() {
        let container = Container()
        container.register(Service.self) { _ in throw Offline() }
        container.register(Feed.self) { r in Feed(service: try r.resolveThrows(Service.self)) }

        let error = container.resolveResult(Feed.self).failure!
        guard case .factoryFailed(let key, let path, let underlying) = error else {
            Issue.record("expected factoryFailed, got \(error)")
            return
        }
        #expect(key == ServiceKey(serviceType: Service.self))
        #expect(path == [ServiceKey(serviceType: Feed.self)])
        #expect(underlying is Offline)
        #expect(error.description.contains("The factory for Service threw: the network is offline"))
        #expect(container.resolve(Feed.self) == nil)
    }

    @Test("An initCompleted action that throws fails the resolve and leaves no instance behind")
    func initCompletedThrows() throws {
        let container = Container()
        let counter = Counter()
        container.register(Service.self) { _ in
            counter.increment()
            return Client()
        }
        .inObjectScope(.container)
        .initCompleted { _, _ in
            if counter.count == 1 { throw Offline() }
        }
        #expect(
            throws: DIError.factoryFailed(key: ServiceKey(serviceType: Service.self), path: [], underlying: Offline())
        ) {
            try container.resolveThrows(Service.self)
        }
        let second = try #require(container.resolve(Service.self))
        #expect(counter.count == 2, "the instance whose action threw was not kept")
        #expect(container.resolve(Service.self) as? Client === second as? Client)
        #expect(counter.count == 2)
    }

    @Test("Forwarding to a type the instance does not conform to gives typeMismatch")
    func typeMismatch() {
        let container = Container()
        let entry = container.register(Dog.self) { _ in Dog(name: "Hachi") }
        container.forward(Cat.self, to: entry)
        #expect(container.resolve(Cat.self) == nil)
        #expect(throws: DIError.typeMismatch(key: ServiceKey(serviceType: Cat.self), actualType: Dog.self)) {
            try container.resolveThrows(Cat.self)
        }
    }

    @Test("A Lazy or Provider of a deallocated container throws containerDeallocated")
    func deallocatedContainer() throws {
        var container: Container? = Container()
        container!.register(Service.self) { _ in Client() }
        let lazy = try #require(container!.resolve(Lazy<Service>.self))
        let provider = try #require(container!.resolve(Provider<Service>.self))
        container = nil
        let expected = DIError.containerDeallocated(key: ServiceKey(serviceType: Service.self))
        #expect(throws: expected) { try lazy.get() }
        #expect(throws: expected) { try provider.get() }
    }

    @Test("The log handler receives the failures that resolve turns into nil", .swapsLogHandler)
    func logHandler() {
        // The handler is process-wide: count only this test's own failures (of a type no other test
        // resolves), and chain to the previous one.
        let seen = Counter()
        let previous = Container.logHandler
        Container.logHandler = { error in
            if case .factoryFailed(let key, _, _) = error, key.serviceType == LoggedService.self {
                seen.increment()
            }
            previous?(error)
        }
        defer { Container.logHandler = previous }
        let container = Container()
        container.register(LoggedService.self) { _ in throw Offline() }
        #expect(container.resolve(LoggedService.self) == nil)
        #expect(seen.count == 1)
    }
}

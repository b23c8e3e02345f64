import Keystone
import Testing

private final class Engine {}
private final class Car {
    let engine: Lazy<Engine>
    let spare: Provider<Engine>
    init(engine: Lazy<Engine>, spare: Provider<Engine>) {
        self.engine = engine
        self.spare = spare
    }
}

@Suite("Lazy and Provider", .tags(.engine))
struct LazyProviderTests {
    @Test("A Lazy resolves on first access, once")
    func lazyResolvesOnce() throws {
        let container = Container()
        let created = Counter()
        container.register(Engine.self) { _ in
            created.increment()
            return Engine()
        }
        let lazy = try #require(container.resolve(Lazy<Engine>.self))
        #expect(created.count == 0)
        let first = lazy.instance
        #expect(lazy.instance === first)
        #expect(created.count == 1)
    }

    @Test("A Provider resolves on every access")
    func providerResolvesEachTime() throws {
        let container = Container()
        let created = Counter()
        container.register(Engine.self) { _ in
            created.increment()
            return Engine()
        }
        let provider = try #require(container.resolve(Provider<Engine>.self))
        #expect(created.count == 0)
        #expect(provider.instance !== provider.instance)
        #expect(created.count == 2)
    }

    @Test("Lazy and Provider follow the wrapped registration's scope, name and arguments")
    func scopeNameAndArguments() throws {
        let container = Container()
        container.register(Engine.self, name: "v8") { _ in Engine() }.inObjectScope(.container)
        container.register(Animal.self) { (_, name: String, _: Int) in Dog(name: name) }
        let provider = try #require(container.resolve(Provider<Engine>.self, name: "v8"))
        #expect(provider.instance === container.resolve(Engine.self, name: "v8"))
        let lazy = try #require(container.resolve(Lazy<Animal>.self, arguments: "Hachi", 42))
        #expect(lazy.instance.name == "Hachi")
        #expect(container.resolve(Lazy<Engine>.self) == nil)
        #expect(container.resolve(Provider<Engine>.self, name: "v6") == nil)
    }

    @Test("A Lazy created in a graph shares that graph's instances that are still alive")
    func lazySharesItsGraph() throws {
        let container = Container()
        container.register(Engine.self) { _ in Engine() }
        container.register(Car.self) { r in
            _ = r.resolve(Engine.self)
            return Car(engine: r.resolve(Lazy<Engine>.self)!, spare: r.resolve(Provider<Engine>.self)!)
        }
        final class Garage {
            let car: Car
            let engine: Engine
            init(car: Car, engine: Engine) {
                self.car = car
                self.engine = engine
            }
        }
        container.register(Garage.self) { r in Garage(car: r.resolve(Car.self)!, engine: r.resolve(Engine.self)!) }
        let garage = try container.resolveThrows(Garage.self)
        #expect(garage.car.engine.instance === garage.engine, "same graph, instance still held by the garage")
        #expect(garage.car.spare.instance !== garage.engine, "a provider resolves in a new graph")
    }

    @Test("Resolving a Lazy of something unregistered fails with the wrapped key")
    func lazyOfUnregistered() {
        let container = Container()
        #expect(throws: DIError.notRegistered(key: ServiceKey(serviceType: Engine.self), path: [], candidates: [])) {
            try container.resolveThrows(Lazy<Engine>.self)
        }
    }

    @Test("A Lazy does not keep its container alive")
    func noRetainCycle() throws {
        weak var weakContainer: Container?
        var lazy: Lazy<Engine>?
        do {
            let container = Container()
            container.register(Engine.self) { _ in Engine() }
            container.register(Car.self) { r in
                Car(engine: r.resolve(Lazy<Engine>.self)!, spare: r.resolve(Provider<Engine>.self)!)
            }
            .inObjectScope(.container)
            lazy = container.resolve(Car.self)?.engine
            weakContainer = container
        }
        #expect(weakContainer == nil)
        #expect(lazy != nil)
    }
}

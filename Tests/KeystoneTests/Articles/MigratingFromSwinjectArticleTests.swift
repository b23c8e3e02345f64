// swift-format-ignore-file
// (The samples here mirror the articles' text line for line: see ArticleSamplesTests.)
import Keystone   // was: import Swinject
import Testing

// The samples of MigratingFromSwinject.md, verbatim, each followed by the facts the article states about
// it. They use the shared fixtures (Animal, Cat, Person, PetOwner); the cycle's types are nested in the
// suite. The first line of this file is the article's first sample.

@Suite("Article: Migrating from Swinject", .hangLimit)
struct MigratingFromSwinjectArticleTests {
    @Test("A throwing factory passes a missing dependency on as an error with its path")
    func factoriesMayThrow() {
        let container = Container()
        container.register(Person.self) { r in
            PetOwner(name: "Stephen", pet: try r.resolveThrows(Animal.self))
        }

        let person = container.resolve(Person.self)   // nil: no Animal is registered
        let result = container.resolveResult(Person.self)
        // .failure(.notRegistered), with the path Person -> Animal

        #expect(person == nil)
        #expect(
            result.failure
                == .notRegistered(
                    key: ServiceKey(serviceType: Animal.self),
                    path: [ServiceKey(serviceType: Person.self)],
                    candidates: []
                )
        )
    }

    @Test("An argument typed as a protocol finds the registration that takes the protocol")
    func argumentsMatchByStaticType() {
        let container = Container()
        container.register(Person.self) { (_, pet: Animal) in PetOwner(name: "Stephen", pet: pet) }

        let pet: Animal = Cat(name: "Mimi")
        let owner = container.resolve(Person.self, argument: pet)                  // found: the static type is Animal
        let noOwner = container.resolve(Person.self, argument: Cat(name: "Mimi")) // nil: nothing takes a Cat

        #expect((owner as? PetOwner)?.pet as? Cat === pet as? Cat)
        #expect(noOwner == nil)
    }

    @Test("synchronize() returns a Sendable view of the same container, not a Container")
    func synchronizeReturnsAView() async {
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "Mimi") }

        let resolver = container.synchronize()           // SynchronizedResolver: Sendable
        let legacy: Resolver = container.synchronize()   // still compiles, but is not Sendable

        let name = await Task.detached { resolver.resolve(Animal.self)?.name }.value
        #expect(name == "Mimi")
        #expect(legacy.resolve(Animal.self)?.name == "Mimi")
        #expect((legacy as? Container) == nil)
        // The view resolves from the container itself: a later registration is seen.
        container.register(Animal.self, name: "dog") { _ in Dog(name: "Hachi") }
        #expect(resolver.resolve(Animal.self, name: "dog") is Dog)
    }

    @Test("A cycle fails the resolve with its path, and resolve returns nil")
    func cycleIsAnError() {
        let container = Container()
        container.register(Ship.self) { r in Ship(captain: try r.resolveThrows(Captain.self)) }
        container.register(Captain.self) { r in Captain(ship: try r.resolveThrows(Ship.self)) }

        let result = container.resolveResult(Ship.self)
        // .failure(.circularDependency), with the path Ship -> Captain -> Ship

        let ship = ServiceKey(serviceType: Ship.self)
        let captain = ServiceKey(serviceType: Captain.self)
        #expect(result.failure == .circularDependency(path: [ship, captain, ship]))
        #expect(result.failure?.description.hasPrefix("Circular dependency: Ship -> Captain -> Ship.") == true)
    }

    @Test("A cycle that a factory tolerates still fails the whole top-level call")
    func toleratedCycleFailsTheCall() {
        let container = Container()
        container.register(Captain.self) { r in
            _ = r.resolve(Ship.self)  // tolerates the nil
            return Captain(ship: nil)
        }
        container.register(Ship.self) { r in Ship(captain: try r.resolveThrows(Captain.self)) }

        #expect(container.resolve(Captain.self) == nil)
        let captain = ServiceKey(serviceType: Captain.self)
        let ship = ServiceKey(serviceType: Ship.self)
        #expect(container.resolveResult(Captain.self).failure == .circularDependency(path: [captain, ship, captain]))
    }

    @Test("A Resolver of one's own implements resolveService, and every overload works through it")
    func ownResolver() {
        struct FixedResolver: Resolver {
            let animal: Animal

            func resolveService<Service, Arguments>(
                _ serviceType: Service.Type,
                name: String?,
                arguments: Arguments,
                argumentCount: Int
            ) throws(DIError) -> Service {
                guard let service = animal as? Service else {
                    let key = ServiceKey(
                        serviceType: Service.self,
                        name: name,
                        argumentsType: Arguments.self,
                        argumentCount: argumentCount
                    )
                    throw .notRegistered(key: key, path: [], candidates: [])
                }
                return service
            }
        }

        let resolver = FixedResolver(animal: Cat(name: "Mimi"))
        let animal = resolver.resolve(Animal.self)      // the Cat: every overload calls resolveService
        let person = resolver.resolve(Person.self)      // nil

        #expect(animal?.name == "Mimi")
        #expect(person == nil)
        #expect(resolver.resolve(Animal.self, name: "any", argument: 1)?.name == "Mimi")
        #expect(throws: DIError.notRegistered(key: ServiceKey(serviceType: Person.self), path: [], candidates: [])) {
            try resolver.resolveThrows(Person.self)
        }
    }

    @Test("The status report lists each registration with its scope, count and instance")
    func statusReport() {
        let container = Container()
        container.register(Animal.self, name: "cat") { _ in Cat(name: "Mimi") }
            .inObjectScope(.container)
        container.countsResolutions = true  // off by default: counting slows every resolve
        let cat = container.resolve(Animal.self, name: "cat")

        let report = container.statusReport()
        // Container with 1 registration:
        // • Animal named "cat" [container] registered 2026-01-12T09:30:00Z, resolved 1 time, shared, instance held

        #expect(cat != nil)
        let lines = report.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.first == "Container with 1 registration:")
        #expect(lines.last?.hasPrefix(#"• Animal named "cat" [container] registered "#) == true)
        #expect(lines.last?.hasSuffix(", resolved 1 time, shared, instance held") == true)
        #expect(container.registeredCount() == 1)
        #expect(container.allRegisteredTypes() == [#"Animal named "cat""#])
    }
}

extension MigratingFromSwinjectArticleTests {
    final class Ship {
        let captain: Captain
        init(captain: Captain) { self.captain = captain }
    }

    final class Captain {
        let ship: Ship?
        init(ship: Ship?) { self.ship = ship }
    }
}

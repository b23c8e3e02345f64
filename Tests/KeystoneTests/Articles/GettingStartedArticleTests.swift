// swift-format-ignore-file
// (The samples here mirror the articles' text line for line: see ArticleSamplesTests.)
import Foundation
import Keystone
import Testing

// The samples of Keystone.md (the landing page) and GettingStarted.md, verbatim, each followed by the
// facts the article states about it. They use the shared fixtures: Animal, Cat, Dog, Horse, Person,
// PetOwner and Owner.

@Suite("Article: the landing page", .hangLimit)
struct LandingPageArticleTests {
    @Test("The overview sample registers, resolves in two styles, and makes a synchronized view")
    func overview() async throws {
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "Mimi") }
        container.register(Person.self) { r in
            PetOwner(name: "Stephen", pet: try r.resolveThrows(Animal.self))
        }

        let person = container.resolve(Person.self)        // Person?, as in Swinject
        let owner = try container.resolveThrows(Person.self) // or a DIError that explains the failure
        let resolver = container.synchronize()              // Sendable: share it with threads and tasks

        #expect(person?.name == "Stephen")
        #expect((owner as? PetOwner)?.pet.name == "Mimi")
        let nameFromTask = await Task.detached { resolver.resolve(Person.self)?.name }.value
        #expect(nameFromTask == "Stephen")
        #expect(resolver.resolve(Person.self)?.name == "Stephen")
    }
}

@Suite("Article: Getting Started", .hangLimit)
struct GettingStartedArticleTests {
    @Test("Register and resolve: the owner gets the registered cat")
    func registerAndResolve() {
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "Mimi") }
        container.register(Person.self) { r in
            PetOwner(name: "Stephen", pet: r.resolve(Animal.self)!)
        }

        let owner = container.resolve(Person.self) as? PetOwner
        // owner?.name is "Stephen", and owner?.pet is a Cat named "Mimi"

        #expect(owner?.name == "Stephen")
        #expect(owner?.pet is Cat)
        #expect(owner?.pet.name == "Mimi")
    }

    @Test("Choose how to fail: nil for the optional style, and the error text the article quotes")
    func chooseHowToFail() throws {
        let container = Container()
        container.register(Animal.self, name: "cat") { _ in Cat(name: "Mimi") }

        let unnamed = container.resolve(Animal.self)          // nil: only "cat" is registered
        let result = container.resolveResult(Animal.self, name: "dog")
        if case .failure(let error) = result {
            print(error)
        }

        #expect(unnamed == nil)
        let error = try #require(result.failure)
        #expect(
            error.description == """
                No registration for Animal named "dog".
                Registered for Animal: Animal named "cat".
                Fix: register it with container.register(Animal.self, name: "dog") { resolver in ... }, or resolve one of the registrations above (names and argument types must match exactly; an argument's static type is what counts).
                """
        )
        #expect(throws: DIError.self) { try container.resolveThrows(Animal.self) }
    }

    @Test("Names and runtime arguments pick the matching registration")
    func namesAndArguments() {
        let container = Container()
        container.register(Animal.self, name: "dog") { _ in Dog(name: "Hachi") }
        container.register(Animal.self) { _, name in Horse(name: name) }
        container.register(Animal.self) { _, name, running in Horse(name: name, running: running) }

        let dog = container.resolve(Animal.self, name: "dog")
        let spirit = container.resolve(Animal.self, argument: "Spirit")
        let lucky = container.resolve(Animal.self, arguments: "Lucky", true)

        #expect(dog is Dog)
        #expect((spirit as? Horse)?.running == false)
        #expect(spirit?.name == "Spirit")
        #expect((lucky as? Horse)?.running == true)
        #expect(lucky?.name == "Lucky")
        // The key's argument types must match exactly.
        let optionalName: String? = "Spirit"
        #expect(container.resolve(Animal.self, argument: optionalName) == nil)
        #expect(container.resolve(Animal.self, argument: "Spirit" as NSString) == nil)
        // Registering the same key again replaces the registration.
        container.register(Animal.self, name: "dog") { _ in Cat(name: "Mimi") }
        #expect(container.resolve(Animal.self, name: "dog") is Cat)
    }

    @Test("Factories that throw: a missing dependency fails with the path that needed it")
    func factoriesThatThrow() {
        let container = Container()
        container.register(Person.self) { r in
            PetOwner(name: "Stephen", pet: try r.resolveThrows(Animal.self))
        }

        do {
            _ = try container.resolveThrows(Person.self)
        } catch {
            // error is DIError.notRegistered: no Animal, needed by Person
        }

        let expected = DIError.notRegistered(
            key: ServiceKey(serviceType: Animal.self),
            path: [ServiceKey(serviceType: Person.self)],
            candidates: []
        )
        #expect(throws: expected) { try container.resolveThrows(Person.self) }
        #expect(expected.description.contains("Needed by: Person -> Animal."))

        struct Offline: Error {}
        container.register(Animal.self) { _ in throw Offline() }
        let failure = container.resolveResult(Person.self).failure
        guard case .factoryFailed(let key, let path, let underlying) = failure else {
            Issue.record("expected factoryFailed, got \(String(describing: failure))")
            return
        }
        #expect(key == ServiceKey(serviceType: Animal.self))
        #expect(path == [ServiceKey(serviceType: Person.self)])
        #expect(underlying is Offline)
    }

    @Test("Share instances with scopes: .container keeps one instance")
    func containerScope() {
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "Mimi") }
            .inObjectScope(.container)

        let first = container.resolve(Animal.self) as? Cat
        let second = container.resolve(Animal.self) as? Cat
        // first === second

        #expect(first != nil)
        #expect(first === second)
    }

    @Test("initCompleted sets a property right after the factory")
    func initCompleted() {
        let container = Container()
        container.register(Animal.self) { _ in Dog(name: "Hachi") }
        container.register(Owner.self) { _ in Owner() }
            .initCompleted { r, owner in
                owner.pet = r.resolve(Animal.self)
            }

        let owner = container.resolve(Owner.self)
        // owner?.pet is the Dog named "Hachi"

        #expect(owner?.pet is Dog)
        #expect(owner?.pet?.name == "Hachi")
    }

    @Test("An assembler applies an assembly and resolves from the assembled container")
    func assemblies() {
        struct PetAssembly: Assembly {
            func assemble(container: Container) {
                container.register(Animal.self) { _ in Cat(name: "Mimi") }
                container.register(Person.self) { r in
                    PetOwner(name: "Stephen", pet: try r.resolveThrows(Animal.self))
                }
            }
        }

        let assembler = Assembler([PetAssembly()])
        let person = assembler.resolver.resolve(Person.self)

        #expect((person as? PetOwner)?.pet.name == "Mimi")
    }

    @Test("The status report counts resolves once countsResolutions is on, and says so while it is off")
    func statusReport() {
        let uncounted = Container()
        uncounted.register(Animal.self) { _ in Cat(name: "Mimi") }
        _ = uncounted.resolve(Animal.self)
        let before = uncounted.statusReport()
        #expect(before.hasPrefix("Container with 1 registration, resolves not counted (see countsResolutions):"))
        #expect(!before.contains("resolved"))

        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "Mimi") }
        container.countsResolutions = true

        _ = container.resolve(Animal.self)
        print(container.statusReport())
        // Container with 1 registration:
        // • Animal [graph] registered 2026-11-21T10:30:00Z, resolved 1 time

        let lines = container.statusReport().split(separator: "\n").map(String.init)
        #expect(lines.first == "Container with 1 registration:")
        #expect(lines.count == 2 && lines[1].hasPrefix("• Animal [graph] registered "))
        #expect(lines.last?.hasSuffix(", resolved 1 time") == true)
    }
}

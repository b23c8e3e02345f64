import Foundation
import Keystone
import Testing

@Suite("Registration keys and runtime arguments", .tags(.engine))
struct RegistrationKeyTests {
    @Test("Registering the same key again replaces the registration and drops its cached instance")
    func replacement() {
        let container = Container()
        weak let first: Tracked? = {
            container.register(Tracked.self) { _ in Tracked(id: 1) }.inObjectScope(.container)
            return container.resolve(Tracked.self)
        }()
        #expect(first?.id == 1)
        container.register(Tracked.self) { _ in Tracked(id: 2) }.inObjectScope(.container)
        #expect(first == nil, "the replaced registration's instance is released")
        #expect(container.resolve(Tracked.self)?.id == 2)
        #expect(container.registeredCount() == 1)
    }

    @Test("Every argument count from 1 to 9 resolves in all three styles")
    func everyArgumentCount() throws {
        let c = Container()
        c.register(String.self) { (_, a: Int) in "\(a)" }
        c.register(String.self) { (_, a: Int, b: Int) in "\(a)\(b)" }
        c.register(String.self) { (_, a: Int, b: Int, d: Int) in "\(a)\(b)\(d)" }
        c.register(String.self) { (_, a: Int, b: Int, d: Int, e: Int) in "\(a)\(b)\(d)\(e)" }
        c.register(String.self) { (_, a: Int, b: Int, d: Int, e: Int, f: Int) in "\(a)\(b)\(d)\(e)\(f)" }
        c.register(String.self) { (_, a: Int, b: Int, d: Int, e: Int, f: Int, g: Int) in "\(a)\(b)\(d)\(e)\(f)\(g)" }
        c.register(String.self) { (_, a: Int, b: Int, d: Int, e: Int, f: Int, g: Int, h: Int) in
            "\(a)\(b)\(d)\(e)\(f)\(g)\(h)"
        }
        c.register(String.self) { (_, a: Int, b: Int, d: Int, e: Int, f: Int, g: Int, h: Int, i: Int) in
            "\(a)\(b)\(d)\(e)\(f)\(g)\(h)\(i)"
        }
        c.register(String.self) { (_, a: Int, b: Int, d: Int, e: Int, f: Int, g: Int, h: Int, i: Int, j: Int) in
            "\(a)\(b)\(d)\(e)\(f)\(g)\(h)\(i)\(j)"
        }
        #expect(c.registeredCount() == 9)

        #expect(c.resolve(String.self, argument: 1) == "1")
        #expect(c.resolve(String.self, arguments: 1, 2) == "12")
        #expect(c.resolve(String.self, arguments: 1, 2, 3) == "123")
        #expect(c.resolve(String.self, arguments: 1, 2, 3, 4) == "1234")
        #expect(c.resolve(String.self, arguments: 1, 2, 3, 4, 5) == "12345")
        #expect(c.resolve(String.self, arguments: 1, 2, 3, 4, 5, 6) == "123456")
        #expect(c.resolve(String.self, arguments: 1, 2, 3, 4, 5, 6, 7) == "1234567")
        #expect(c.resolve(String.self, arguments: 1, 2, 3, 4, 5, 6, 7, 8) == "12345678")
        #expect(c.resolve(String.self, arguments: 1, 2, 3, 4, 5, 6, 7, 8, 9) == "123456789")

        #expect(try c.resolveThrows(String.self, argument: 1) == "1")
        #expect(try c.resolveThrows(String.self, arguments: 1, 2) == "12")
        #expect(try c.resolveThrows(String.self, arguments: 1, 2, 3) == "123")
        #expect(try c.resolveThrows(String.self, arguments: 1, 2, 3, 4) == "1234")
        #expect(try c.resolveThrows(String.self, arguments: 1, 2, 3, 4, 5) == "12345")
        #expect(try c.resolveThrows(String.self, arguments: 1, 2, 3, 4, 5, 6) == "123456")
        #expect(try c.resolveThrows(String.self, arguments: 1, 2, 3, 4, 5, 6, 7) == "1234567")
        #expect(try c.resolveThrows(String.self, arguments: 1, 2, 3, 4, 5, 6, 7, 8) == "12345678")
        #expect(try c.resolveThrows(String.self, arguments: 1, 2, 3, 4, 5, 6, 7, 8, 9) == "123456789")

        #expect(try c.resolveResult(String.self, argument: 1).get() == "1")
        #expect(try c.resolveResult(String.self, arguments: 1, 2).get() == "12")
        #expect(try c.resolveResult(String.self, arguments: 1, 2, 3).get() == "123")
        #expect(try c.resolveResult(String.self, arguments: 1, 2, 3, 4).get() == "1234")
        #expect(try c.resolveResult(String.self, arguments: 1, 2, 3, 4, 5).get() == "12345")
        #expect(try c.resolveResult(String.self, arguments: 1, 2, 3, 4, 5, 6).get() == "123456")
        #expect(try c.resolveResult(String.self, arguments: 1, 2, 3, 4, 5, 6, 7).get() == "1234567")
        #expect(try c.resolveResult(String.self, arguments: 1, 2, 3, 4, 5, 6, 7, 8).get() == "12345678")
        #expect(try c.resolveResult(String.self, arguments: 1, 2, 3, 4, 5, 6, 7, 8, 9).get() == "123456789")
    }

    @Test("Named resolves with arguments find only the registration with that name")
    func namedWithArguments() {
        let c = Container()
        c.register(Animal.self, name: "horse") { _, name in Horse(name: name) }
        c.register(Animal.self, name: "cat") { _, name in Cat(name: name) }
        #expect(c.resolve(Animal.self, name: "horse", argument: "Spirit") is Horse)
        #expect(c.resolve(Animal.self, name: "cat", argument: "Tama") is Cat)
        #expect(c.resolve(Animal.self, argument: "Tama") == nil)
    }

    @Test("An argument of the wrong type resolves to nil and the error names the near miss")
    func exactTypeMismatch() {
        let container = Container()
        container.register(Animal.self) { _, name in Cat(name: name) }
        let optionalName: String? = "Mimi"
        #expect(container.resolve(Animal.self, argument: optionalName) == nil)

        let result = container.resolveResult(Animal.self, argument: optionalName)
        guard case .failure(.notRegistered(let key, let path, let candidates)) = result else {
            Issue.record("expected notRegistered, got \(result)")
            return
        }
        #expect(key == ServiceKey(serviceType: Animal.self, argumentsType: String?.self))
        #expect(path.isEmpty)
        #expect(candidates == [ServiceKey(serviceType: Animal.self, argumentsType: String.self)])
        let description = String(describing: result.failure!)
        #expect(description.contains("No registration for Animal with arguments (Optional<String>)."))
        #expect(description.contains("Registered for Animal: Animal with arguments (String)."))
    }

    @Test("An argument typed as a protocol finds the registration declared with that protocol")
    func existentialArgument() {
        let container = Container()
        container.register(Person.self) { (_, pet: Animal) in PetOwner(name: "Stephen", pet: pet) }
        let cat = Cat(name: "Mimi")

        // The guide's spelling: coerced at the call site.
        #expect(container.resolve(Person.self, argument: cat as Animal) != nil)
        // A value whose static type is the protocol: Keystone keeps the static type (Swift 6 would
        // otherwise open the existential and look for a registration taking `Cat`).
        let animal: Animal = cat
        let owner = container.resolve(Person.self, argument: animal) as? PetOwner
        #expect(owner?.pet as? Cat === cat)
        let animals: [Animal] = [cat, Dog(name: "Hachi")]
        #expect(container.resolve(Person.self, argument: animals[1]) != nil)
        #expect(container.resolve(Person.self, arguments: animal, 1) == nil)
        // The concrete type is a different key, as in Swinject.
        #expect(container.resolve(Person.self, argument: cat) == nil)
    }

    @Test("Arguments are evaluated once per resolve, before anything else")
    func argumentsEvaluatedOnce() {
        let container = Container()
        container.register(Animal.self) { _, name in Cat(name: name) }
        let counter = Counter()
        func next() -> String {
            counter.increment()
            return "Mimi"
        }
        _ = container.resolve(Animal.self, argument: next())
        _ = container.resolve(Animal.self, name: "missing", argument: next())
        #expect(counter.count == 2)
    }

    @Test("An optional service type resolves to nil when its wrapped type is not registered")
    func optionalService() {
        let container = Container()
        switch container.resolve(Dog?.self) {
        case .some(.none): break
        default: Issue.record("expected .some(nil)")
        }
        container.register(Dog.self) { _ in Dog(name: "Hachi") }
        #expect((container.resolve(Dog?.self) ?? nil)?.name == "Hachi")
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

@Suite("Registering while resolving")
struct RegisteringWhileResolvingTests {
    final class Widget {}

    @Test("A factory may replace its own registration while it runs; the next resolve uses the new one")
    func factoryReplacesItself() {
        let container = Container()
        let generations = Counter()
        func install() {
            container.register(Widget.self) { _ in
                generations.increment()
                install()  // replaces the registration whose factory is running
                return Widget()
            }.inObjectScope(.transient)
        }
        install()
        for _ in 0..<100 {
            #expect(container.resolve(Widget.self) != nil)
        }
        #expect(generations.count == 100)
        #expect(container.registeredCount() == 1)
    }
}

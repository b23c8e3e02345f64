import Keystone
import Testing

// The registrations, resolves and forwards that take a variable number of types or arguments are
// parameter-pack overloads; these tests pin the behavior they must keep from the hand-written ones.

private protocol Trait1 {}
private protocol Trait2 {}
private protocol Trait3 {}
private protocol Trait4 {}
private protocol Trait5 {}
private protocol Trait6 {}
private protocol Trait7 {}
private protocol Trait8 {}
private protocol Trait9 {}
private final class Everything: Trait1, Trait2, Trait3, Trait4, Trait5, Trait6, Trait7, Trait8, Trait9 {}

private struct Failure: Error {}

private func name(_ value: String) throws -> String {
    if value.isEmpty { throw Failure() }
    return value
}

private func slowName(_ value: String) async -> String {
    await Task.yield()
    return value
}

@Suite("Arities: one overload for every argument count")
struct ArityTests {
    // MARK: The static type of an existential argument

    @Test("One argument typed any Animal finds the registration taking Animal, never Cat")
    func existentialOneArgument() throws {
        let container = Container()
        container.register(String.self) { (_, _: Animal) in "animal" }
        container.register(String.self) { (_, _: Cat) in "cat" }
        let animal: any Animal = Cat(name: "Mimi")
        #expect(container.resolve(String.self, argument: animal) == "animal")
        #expect(try container.resolveThrows(String.self, argument: animal) == "animal")
        #expect(try container.resolveResult(String.self, argument: animal).get() == "animal")
        #expect(container.resolve(String.self, argument: animal as! Cat) == "cat")

        container.register(String.self, name: "named") { (_, _: Animal) in "named animal" }
        #expect(container.resolve(String.self, name: "named", argument: animal) == "named animal")
    }

    @Test("Two arguments typed any Animal find the registration taking Animal, in either position")
    func existentialTwoArguments() throws {
        let container = Container()
        container.register(String.self) { (_, _: Animal, _: Int) in "animal first" }
        container.register(String.self) { (_, _: Cat, _: Int) in "cat first" }
        container.register(String.self) { (_, _: Int, _: Animal) in "animal second" }
        container.register(String.self) { (_, _: Int, _: Cat) in "cat second" }
        let animal: any Animal = Cat(name: "Mimi")
        #expect(container.resolve(String.self, arguments: animal, 1) == "animal first")
        #expect(try container.resolveThrows(String.self, arguments: 1, animal) == "animal second")
        #expect(try container.resolveResult(String.self, arguments: animal, 1).get() == "animal first")
        #expect(container.resolve(String.self, arguments: 1, animal as! Cat) == "cat second")
    }

    @Test("Three or more arguments typed any Animal find the registration taking Animal, in every position")
    func existentialThreeOrMoreArguments() throws {
        let container = Container()
        container.register(String.self) { (_, _: Animal, _: Int, _: Animal) in "animals" }
        container.register(String.self) { (_, _: Cat, _: Int, _: Cat) in "cats" }
        container.register(String.self) { (_, _: Int, _: Int, _: Int, _: Animal) in "animal fourth" }
        container.register(String.self) { (_, _: Int, _: Int, _: Int, _: Cat) in "cat fourth" }
        let animal: any Animal = Cat(name: "Mimi")
        #expect(container.resolve(String.self, arguments: animal, 1, animal) == "animals")
        #expect(try container.resolveThrows(String.self, arguments: animal, 1, animal) == "animals")
        #expect(try container.resolveResult(String.self, arguments: 1, 2, 3, animal).get() == "animal fourth")
        #expect(container.resolve(String.self, arguments: 1, 2, 3, animal as! Cat) == "cat fourth")
    }

    @Test("An existential argument keeps its static type through the any Resolver a factory is handed")
    func existentialThroughAnyResolver() {
        let container = Container()
        container.register(String.self) { (_, _: Animal) in "one" }
        container.register(String.self) { (_, _: Animal, _: Animal) in "two" }
        container.register(String.self) { (_, _: Animal, _: Animal, _: Animal) in "three" }
        container.register([String].self) { (resolver: any Resolver, animal: Animal) in
            [
                resolver.resolve(String.self, argument: animal),
                resolver.resolve(String.self, arguments: animal, animal),
                resolver.resolve(String.self, arguments: animal, animal, animal),
            ].compactMap { $0 }
        }
        let animal: any Animal = Dog(name: "Hachi")
        #expect(container.resolve([String].self, argument: animal) == ["one", "two", "three"])
    }

    // MARK: Argument expressions

    @Test("Arguments are evaluated once each, left to right, before the factory runs")
    func evaluationOrder() {
        let container = Container()
        var events: [String] = []
        container.register(String.self) { (_, a: Int, b: Int, c: Int) in
            events.append("factory")
            return "\(a)\(b)\(c)"
        }
        func next(_ value: Int) -> Int {
            events.append("argument \(value)")
            return value
        }
        #expect(container.resolve(String.self, arguments: next(1), next(2), next(3)) == "123")
        #expect(events == ["argument 1", "argument 2", "argument 3", "factory"])
    }

    @Test("try and await may appear inside argument expressions, as in Swinject")
    func effectsInArguments() async throws {
        let container = Container()
        container.register(Animal.self) { _, name in Cat(name: name) }
        container.register(Animal.self) { _, name, running in Horse(name: name, running: running) }
        #expect(try container.resolveThrows(Animal.self, argument: try name("Mimi")).name == "Mimi")
        #expect(container.resolve(Animal.self, arguments: try name("Lucky"), true)?.name == "Lucky")
        #expect(container.resolve(Animal.self, argument: await slowName("Spirit"))?.name == "Spirit")
        #expect(throws: Failure.self) {
            _ = container.resolve(Animal.self, argument: try name(""))
        }
    }

    // MARK: Counts and keys

    @Test("Nine arguments register and resolve in all three styles, named and unnamed")
    func nineArguments() throws {
        let container = Container()
        container.register(String.self) {
            (_, a: Int, b: Int, c: Int, d: Int, e: Int, f: Int, g: Int, h: Int, i: String) in
            "\(a + b + c + d + e + f + g + h) \(i)"
        }
        container.register(String.self, name: "named") { _, a, b, c, d, e, f, g, h, i in
            [a, b, c, d, e, f, g, h, i].joined()
        }
        #expect(container.resolve(String.self, arguments: 1, 2, 3, 4, 5, 6, 7, 8, "nine") == "36 nine")
        #expect(try container.resolveThrows(String.self, arguments: 1, 1, 1, 1, 1, 1, 1, 1, "x") == "8 x")
        #expect(try container.resolveResult(String.self, arguments: 0, 0, 0, 0, 0, 0, 0, 0, "y").get() == "0 y")
        let letters = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        let joined = container.resolve(
            String.self,
            name: "named",
            arguments: letters[0],
            letters[1],
            letters[2],
            letters[3],
            letters[4],
            letters[5],
            letters[6],
            letters[7],
            letters[8]
        )
        #expect(joined == "abcdefghi")
        // Eight arguments are another key.
        #expect(container.resolve(String.self, arguments: 1, 2, 3, 4, 5, 6, 7, 8) == nil)
    }

    @Test("One tuple argument and two arguments stay two keys, as do three arguments and a pair plus one")
    func tupleVersusArguments() throws {
        let container = Container()
        container.register(String.self) { (_, pair: (Int, Int)) in "pair" }
        container.register(String.self) { (_, _: Int, _: Int) in "two" }
        container.register(String.self) { (_, _: (Int, Int), _: Int) in "pair and one" }
        container.register(String.self) { (_, _: Int, _: Int, _: Int) in "three" }
        #expect(container.registeredCount() == 4)
        #expect(try container.resolveThrows(String.self, argument: (1, 2)) == "pair")
        #expect(try container.resolveThrows(String.self, arguments: 1, 2) == "two")
        #expect(try container.resolveThrows(String.self, arguments: (1, 2), 3) == "pair and one")
        #expect(try container.resolveThrows(String.self, arguments: 1, 2, 3) == "three")
        #expect(container.resolve(String.self, argument: (1, 2, 3)) == nil)
    }

    // MARK: Type forwarding

    @Test("implements forwards one, two or nine types to the same registration")
    func implementsCounts() {
        let one = Container()
        one.register(Everything.self) { _ in Everything() }
            .inObjectScope(.container)
            .implements((any Trait1).self)
            .implements((any Trait2).self, name: "named")
        let first = one.resolve(Everything.self)
        #expect(first != nil)
        #expect(one.resolve((any Trait1).self) as? Everything === first)
        #expect(one.resolve((any Trait2).self, name: "named") as? Everything === first)
        #expect(one.resolve((any Trait2).self) == nil)

        let two = Container()
        two.register(Everything.self) { _ in Everything() }
            .inObjectScope(.container)
            .implements((any Trait1).self, (any Trait2).self)
        let second = two.resolve(Everything.self)
        #expect(second != nil)
        #expect(two.resolve((any Trait1).self) as? Everything === second)
        #expect(two.resolve((any Trait2).self) as? Everything === second)
        #expect(two.resolve((any Trait3).self) == nil)

        let nine = Container()
        let entry = nine.register(Everything.self) { _ in Everything() }
            .inObjectScope(.container)
            .implements(
                (any Trait1).self,
                (any Trait2).self,
                (any Trait3).self,
                (any Trait4).self,
                (any Trait5).self,
                (any Trait6).self,
                (any Trait7).self,
                (any Trait8).self,
                (any Trait9).self
            )
        #expect(entry.objectScope === ObjectScope.container, "implements hands back the entry it configured")
        let third = nine.resolve(Everything.self)
        #expect(third != nil)
        #expect(nine.resolve((any Trait1).self) as? Everything === third)
        #expect(nine.resolve((any Trait5).self) as? Everything === third)
        #expect(nine.resolve((any Trait9).self) as? Everything === third)
    }
}

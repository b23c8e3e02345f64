import Keystone
import Testing

@Suite("Object scopes", .tags(.engine))
struct ScopeTests {
    @Test("A transient registration creates a new instance on every resolve, even within one graph")
    func transient() {
        let container = Container()
        container.register(Food.self) { _ in Sushi() }.inObjectScope(.transient)
        container.register(FoodCritic.self) { r in
            let owner = Owner()
            owner.food = r.resolve(Food.self)
            return FoodCritic(owner: owner, food: r.resolve(Food.self)!)
        }
        let first = container.resolve(Food.self)
        let second = container.resolve(Food.self)
        #expect(first !== second)
        let critic = container.resolve(FoodCritic.self)!
        #expect(critic.food !== critic.owner.food)
    }

    @Test("A graph registration is shared within one top-level resolve and new across resolves")
    func graph() {
        let container = Container()
        container.register(Food.self) { _ in Sushi() }  // .graph is the default
        container.register(Owner.self) { r in
            let owner = Owner()
            owner.food = r.resolve(Food.self)
            return owner
        }
        container.register(Person.self) { r in
            let owner = r.resolve(Owner.self)!
            return FoodCritic(owner: owner, food: r.resolve(Food.self)!)
        }
        let critic = container.resolve(Person.self) as! FoodCritic
        #expect(critic.food === critic.owner.food)
        let other = container.resolve(Person.self) as! FoodCritic
        #expect(other.food !== critic.food)
    }

    @Test("A graph instance is released when its top-level resolve returns")
    func graphInstanceIsNotKept() {
        let container = Container()
        container.register(Tracked.self) { _ in Tracked() }
        container.register(Owner.self) { r in
            _ = r.resolve(Tracked.self)
            return Owner()
        }
        weak let tracked = container.resolve(Tracked.self)
        #expect(tracked == nil)
        _ = container.resolve(Owner.self)
        weak var nested: Tracked?
        container.register(Person.self) { r in
            nested = r.resolve(Tracked.self)
            return FoodCritic(owner: Owner(), food: Sushi())
        }
        _ = container.resolve(Person.self)
        #expect(nested == nil)
    }

    @Test("A container registration is created once and shared until reset")
    func container() {
        let container = Container()
        let counter = Counter()
        container.register(Food.self) { _ in
            counter.increment()
            return Sushi()
        }.inObjectScope(.container)
        let first = container.resolve(Food.self)
        let second = container.resolve(Food.self)
        #expect(first === second)
        #expect(counter.count == 1)

        container.resetObjectScope(.container)
        let third = container.resolve(Food.self)
        #expect(third !== first)
        #expect(counter.count == 2)
    }

    @Test("resetObjectScope with a service type discards only that type's instances")
    func resetByServiceType() throws {
        let container = Container()
        container.register(Food.self) { _ in Sushi() }.inObjectScope(.container)
        container.register(Tracked.self) { _ in Tracked() }.inObjectScope(.container)
        let food = try #require(container.resolve(Food.self))
        let tracked = try #require(container.resolve(Tracked.self))
        container.resetObjectScope(.container, serviceType: Food.self)
        #expect(container.resolve(Food.self) !== food)
        #expect(container.resolve(Tracked.self) === tracked)
    }

    @Test("A weak registration is shared while something holds it, and released after")
    func weak() {
        let container = Container()
        container.register(Tracked.self) { _ in Tracked() }.inObjectScope(.weak)
        var held: Tracked? = container.resolve(Tracked.self)
        #expect(held != nil)
        #expect(container.resolve(Tracked.self) === held)
        weak let observer = held
        held = nil
        #expect(observer == nil)
        #expect(container.resolve(Tracked.self) != nil)
    }

    @Test("A weak instance survives its own graph even when nothing else holds it yet")
    func weakWithinGraph() {
        let container = Container()
        container.register(Tracked.self) { _ in Tracked() }.inObjectScope(.weak)
        container.register(Pair.self) { r in Pair(r.resolve(Tracked.self)!, r.resolve(Tracked.self)!) }
        let pair = container.resolve(Pair.self)!
        #expect(pair.first === pair.second)
    }

    @Test("Value types are copied out of every scope, and a container-scoped value's factory runs once")
    func valueTypes() {
        let counter = Counter()
        for scope in [ObjectScope.transient, .graph, .container, .weak] {
            let container = Container()
            container.register(Turtle.self) { _ in
                counter.increment()
                return Turtle(name: "Ninja")
            }.inObjectScope(scope)
            var first = container.resolve(Turtle.self)!
            let second = container.resolve(Turtle.self)!
            first.name = "Samurai"
            #expect(second.name == "Ninja")
        }
        // transient 2 + graph 2 + container 1 + weak 2 (a value cannot be held weakly)
        #expect(counter.count == 7)
    }

    @Test("Changing an entry's scope discards the instance the old scope held")
    func changingScope() throws {
        let container = Container()
        let entry = container.register(Food.self) { _ in Sushi() }.inObjectScope(.container)
        let first = try #require(container.resolve(Food.self))
        // `first` is still held: a .weak scope that took over the old instance would hand it out again.
        entry.inObjectScope(.weak)
        let second = try #require(container.resolve(Food.self))
        #expect(second !== first)
        #expect(container.resolve(Food.self) === second, "the new scope shares its own instance")
        withExtendedLifetime(first) {}
    }

    @Test("The default object scope of a container applies to registrations that do not set one")
    func defaultScope() throws {
        let container = Container(defaultObjectScope: .container)
        let entry = container.register(Food.self) { _ in Sushi() }
        #expect(entry.objectScope === ObjectScope.container)
        let food = try #require(container.resolve(Food.self))
        #expect(container.resolve(Food.self) === food)
    }
}

@Suite("Custom scopes and graph identifiers")
struct CustomScopeTests {
    final class Box: InstanceStorage {
        var instance: Any?
        var completedGraphs = 0
        func graphResolutionCompleted() { completedGraphs += 1 }
    }

    @Test("A custom scope keeps instances in the storage its factory makes, and reset empties it")
    func customStorage() {
        let storage = Box()
        let session = ObjectScope(storageFactory: { storage }, description: "session")
        let container = Container()
        container.register(Food.self) { _ in Sushi() }.inObjectScope(session)
        let first = container.resolve(Food.self)
        #expect(storage.instance as? Sushi === first as? Sushi)
        #expect(container.resolve(Food.self) === first)
        #expect(storage.completedGraphs >= 1)
        container.resetObjectScope(session)
        #expect(storage.instance == nil)
        #expect(container.resolve(Food.self) !== first)
    }

    @Test("A graph identifier is available inside a factory only, and withObjectGraph resolves in it again")
    func graphIdentifier() throws {
        let container = Container()
        var graph: GraphIdentifier?
        container.register(Tracked.self) { r in
            graph = r.resolve(GraphIdentifier.self)
            return Tracked()
        }
        #expect(container.resolve(GraphIdentifier.self) == nil)
        let tracked = container.resolve(Tracked.self)!
        let identifier = try #require(graph)
        let again = container.withObjectGraph(identifier) { $0.resolve(Tracked.self) }
        #expect(again === tracked)
        let other = container.resolve(Tracked.self)
        #expect(other !== tracked)
        #expect(graph != identifier, "each top-level resolve has a graph of its own")
    }
}

final class FoodCritic: Person {
    let name = "critic"
    let owner: Owner
    let food: Food
    init(owner: Owner, food: Food) {
        self.owner = owner
        self.food = food
    }
}

final class Pair {
    let first: Tracked
    let second: Tracked
    init(_ first: Tracked, _ second: Tracked) {
        self.first = first
        self.second = second
    }
}

import Keystone
import Testing

@Suite("Container hierarchies", .tags(.engine))
struct HierarchyTests {
    @Test("A child resolves what its parent registered")
    func childSeesParent() {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat(name: "Mimi") }
        let child = Container(parent: parent)
        #expect(child.resolve(Animal.self)?.name == "Mimi")
    }

    @Test("A parent never sees what its child registered")
    func parentDoesNotSeeChild() throws {
        let parent = Container()
        let child = Container(parent: parent)
        child.register(Animal.self) { _ in Cat(name: "Mimi") }
        #expect(parent.resolve(Animal.self) == nil)
        #expect(throws: DIError.notRegistered(key: ServiceKey(serviceType: Animal.self), path: [], candidates: [])) {
            try parent.resolveThrows(Animal.self)
        }
    }

    @Test("A child's own registration takes precedence over its parent's")
    func childOverridesParent() {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat(name: "Mimi") }
        let child = Container(parent: parent)
        child.register(Animal.self) { _ in Dog(name: "Hachi") }
        #expect(child.resolve(Animal.self) is Dog)
        #expect(parent.resolve(Animal.self) is Cat)
    }

    @Test("A parent's container-scoped instance is shared with its children, whoever resolves first")
    func containerInstanceShared() throws {
        let parent = Container()
        parent.register(Food.self) { _ in Sushi() }.inObjectScope(.container)
        parent.register(Food.self, name: "lunch") { _ in Sushi() }.inObjectScope(.container)
        let first = Container(parent: parent)
        let second = Container(parent: parent)

        let fromParent = try #require(parent.resolve(Food.self))
        #expect(first.resolve(Food.self) === fromParent)
        #expect(second.resolve(Food.self) === fromParent)

        let lunch = try #require(second.resolve(Food.self, name: "lunch"))
        #expect(first.resolve(Food.self, name: "lunch") === lunch)
        #expect(parent.resolve(Food.self, name: "lunch") === lunch)
    }

    @Test("Three levels deep, the grandchild resolves the root's registration")
    func threeLevels() throws {
        let root = Container()
        root.register(Food.self) { _ in Sushi() }.inObjectScope(.container)
        let grandchild = Container(parent: Container(parent: Container(parent: root)))
        let food = try #require(grandchild.resolve(Food.self))
        #expect(root.resolve(Food.self) === food)
    }

    @Test("A parent's factory resolves its dependencies from the container the resolve started in")
    func factoryGetsRequestingContainer() {
        let parent = Container()
        parent.register(Person.self) { r in PetOwner(name: "Stephen", pet: try r.resolveThrows(Animal.self)) }
        let child = Container(parent: parent)
        child.register(Animal.self) { _ in Dog(name: "Hachi") }
        #expect((child.resolve(Person.self) as? PetOwner)?.pet is Dog)
        #expect(parent.resolve(Person.self) == nil)
    }

    @Test("hasAnyRegistration looks at the name and at ancestors")
    func hasAnyRegistration() {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat(name: "Mimi") }
        parent.register(Food.self, name: "sushi") { _ in Sushi() }
        let child = Container(parent: parent)
        #expect(child.hasAnyRegistration(of: Animal.self))
        #expect(child.hasAnyRegistration(of: Food.self, name: "sushi"))
        #expect(!child.hasAnyRegistration(of: Food.self))
        #expect(!child.hasAnyRegistration(of: Person.self))
    }

    @Test("resetObjectScope on a child resets its ancestors' instances too")
    func resetReachesParent() throws {
        let parent = Container()
        parent.register(Food.self) { _ in Sushi() }.inObjectScope(.container)
        let child = Container(parent: parent)
        let food = try #require(child.resolve(Food.self))
        child.resetObjectScope(.container)
        #expect(parent.resolve(Food.self) !== food)
    }

    @Test("removeAll removes a container's own registrations, not its parent's")
    func removeAll() {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat(name: "Mimi") }
        let child = Container(parent: parent)
        child.register(Animal.self, name: "dog") { _ in Dog(name: "Hachi") }
        child.removeAll()
        #expect(child.resolve(Animal.self, name: "dog") == nil)
        #expect(child.resolve(Animal.self) is Cat, "the parent's registration still resolves")
        #expect(child.registeredCount() == 0)
    }
}

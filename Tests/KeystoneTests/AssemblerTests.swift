import Keystone
import Testing

private final class Journal {
    var lines: [String] = []
}

private struct AnimalAssembly: Assembly {
    let journal: Journal
    func assemble(container: Container) {
        journal.lines.append("assemble animals")
        container.register(Animal.self) { _ in Cat(name: "Whiskers") }
    }
    func loaded(resolver: any Resolver) {
        journal.lines.append("loaded animals: \(resolver.resolve(Person.self)?.name ?? "-")")
    }
}

private struct PersonAssembly: Assembly {
    let journal: Journal
    func assemble(container: Container) {
        journal.lines.append("assemble people")
        container.register(Person.self) { r in PetOwner(name: "Stephen", pet: try r.resolveThrows(Animal.self)) }
    }
}

@Suite("Assembler")
struct AssemblerTests {
    @Test("Every assembly registers before any is told it is loaded")
    func assembleThenLoaded() {
        let journal = Journal()
        let assembler = Assembler([AnimalAssembly(journal: journal), PersonAssembly(journal: journal)])
        #expect(journal.lines == ["assemble animals", "assemble people", "loaded animals: Stephen"])
        #expect(assembler.resolver.resolve(Person.self)?.name == "Stephen")
    }

    @Test("A child assembler resolves from its parent, never the other way round")
    func parentAndChild() {
        let journal = Journal()
        let parent = Assembler([AnimalAssembly(journal: journal)])
        let child = Assembler([PersonAssembly(journal: journal)], parent: parent)
        let person = child.resolver.resolve(Person.self) as? PetOwner
        #expect(person?.pet.name == "Whiskers", "the child's factory got the parent's Animal")
        #expect(parent.resolver.resolve(Person.self) == nil)
    }

    @Test("Assemblies applied later add to the same container, with the default scope given")
    func applyLater() {
        let journal = Journal()
        let assembler = Assembler(parentAssembler: nil, defaultObjectScope: .container)
        assembler.apply(assembly: AnimalAssembly(journal: journal))
        assembler.apply(assemblies: [PersonAssembly(journal: journal)])
        #expect(assembler.resolver.resolve(Person.self) != nil)
        let first = assembler.resolver.resolve(Animal.self) as? Cat
        #expect(first != nil && first === assembler.resolver.resolve(Animal.self) as? Cat)
    }
}

@Suite("Type forwarding")
struct TypeForwardingTests {
    @Test("implements resolves the same registration, instance and scope, under other types and names")
    func implements() throws {
        let container = Container()
        container.register(Dog.self) { _ in Dog(name: "Hachi") }
            .inObjectScope(.container)
            .implements(Animal.self)
            .implements(Animal.self, name: "pet")
        let dog = try #require(container.resolve(Dog.self))
        #expect(container.resolve(Animal.self) as? Dog === dog)
        #expect(container.resolve(Animal.self, name: "pet") as? Dog === dog)
        #expect(container.registeredCount() == 3)
    }

    @Test("A forwarded registration with arguments needs the same arguments")
    func forwardingWithArguments() {
        let container = Container()
        let entry = container.register(Horse.self) { _, name, running in Horse(name: name, running: running) }
        container.forward(Animal.self, to: entry)
        #expect((container.resolve(Animal.self, arguments: "Lucky", true) as? Horse)?.running == true)
        #expect(container.resolve(Animal.self) == nil)
    }
}

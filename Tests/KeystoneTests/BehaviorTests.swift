import Keystone
import Testing

/// What a behavior is told about registrations, in which container, and when.
@Suite("Behaviors")
struct BehaviorTests {
    protocol Walker {}
    protocol Swimmer {}
    final class Retriever: Animal, Walker, Swimmer {
        let name = "Rex"
    }

    /// One call of a behavior, as plain values.
    struct Call: Equatable {
        let container: ObjectIdentifier
        let entry: ObjectIdentifier
        let type: ObjectIdentifier
        let service: ObjectIdentifier
        let name: String?
        let observer: String

        init(
            container: Container,
            entry: AnyObject,
            type: Any.Type,
            service: Any.Type,
            name: String?,
            by observer: String
        ) {
            self.container = ObjectIdentifier(container)
            self.entry = ObjectIdentifier(entry)
            self.type = ObjectIdentifier(type)
            self.service = ObjectIdentifier(service)
            self.name = name
            self.observer = observer
        }
    }

    /// Calls recorded by every spy that shares it, in order.
    final class Journal {
        var calls: [Call] = []
        // The entries are kept alive, so that no identifier recorded above is reused.
        var entries: [AnyObject] = []
    }

    final class Spy: Behavior {
        let label: String
        let journal: Journal
        init(_ label: String, journal: Journal = Journal()) {
            self.label = label
            self.journal = journal
        }

        var calls: [Call] { journal.calls.filter { $0.observer == label } }

        func container<Type, Service>(
            _ container: Container,
            didRegisterType type: Type.Type,
            toService entry: ServiceEntry<Service>,
            withName name: String?
        ) {
            journal.entries.append(entry)
            journal.calls.append(
                Call(container: container, entry: entry, type: type, service: Service.self, name: name, by: label)
            )
        }
    }

    struct RetrieverAssembly: Assembly {
        func assemble(container: Container) {
            container.register(Retriever.self) { _ in Retriever() }
            container.register(Animal.self, name: "pet") { _ in Cat(name: "Mimi") }
        }
    }

    @Test("A behavior is told of a registration with its container, entry, type and name")
    func registration() {
        let spy = Spy("spy")
        let container = Container()
        container.addBehavior(spy)

        let named = container.register(Animal.self, name: "Hachi") { _ in Dog(name: "Hachi") }
        let unnamed = container.register(Cat.self) { _ in Cat(name: "Mimi") }

        #expect(
            spy.calls == [
                Call(
                    container: container,
                    entry: named,
                    type: Animal.self,
                    service: Animal.self,
                    name: "Hachi",
                    by: "spy"
                ),
                Call(container: container, entry: unnamed, type: Cat.self, service: Cat.self, name: nil, by: "spy"),
            ]
        )
    }

    @Test("A behavior written for Swinject reads the entry's serviceType")
    func entryServiceType() {
        final class TypeLog: Behavior {
            var types: [String] = []
            func container<Type, Service>(
                _ container: Container,
                didRegisterType type: Type.Type,
                toService entry: ServiceEntry<Service>,
                withName name: String?
            ) {
                types.append(String(describing: entry.serviceType))
            }
        }
        let log = TypeLog()
        let container = Container()
        container.addBehavior(log)
        container.register(Animal.self, name: "Hachi") { _ in Dog(name: "Hachi") }
        container.register(Cat.self) { (_, name: String) in Cat(name: name) }
        #expect(log.types == ["Animal", "Cat"])
    }

    @Test("A registration that takes arguments is reported under its service type, once")
    func registrationWithArguments() {
        let spy = Spy("spy")
        let container = Container(behaviors: [spy])

        let entry = container.register(Animal.self, name: "named") { (_, name: String, running: Bool) in
            Horse(name: name, running: running)
        }

        #expect(
            spy.calls == [
                Call(
                    container: container,
                    entry: entry,
                    type: Animal.self,
                    service: Animal.self,
                    name: "named",
                    by: "spy"
                )
            ]
        )
    }

    @Test("Forwarding a type reports the forwarded type and the forward's own name, with the original entry")
    func forwarding() {
        let spy = Spy("spy")
        let container = Container()
        container.addBehavior(spy)

        let entry = container.register(Retriever.self, name: "Hachi") { _ in Retriever() }
            .implements(Animal.self)
            .implements(Walker.self, name: "walker")
        container.forward(Swimmer.self, name: "swimmer", to: entry)

        #expect(
            spy.calls == [
                Call(
                    container: container,
                    entry: entry,
                    type: Retriever.self,
                    service: Retriever.self,
                    name: "Hachi",
                    by: "spy"
                ),
                Call(
                    container: container,
                    entry: entry,
                    type: Animal.self,
                    service: Retriever.self,
                    name: nil,
                    by: "spy"
                ),
                Call(
                    container: container,
                    entry: entry,
                    type: Walker.self,
                    service: Retriever.self,
                    name: "walker",
                    by: "spy"
                ),
                Call(
                    container: container,
                    entry: entry,
                    type: Swimmer.self,
                    service: Retriever.self,
                    name: "swimmer",
                    by: "spy"
                ),
            ]
        )
    }

    @Test("Forwarding several types at once reports each of them, in the order given")
    func forwardingSeveral() {
        let spy = Spy("spy")
        let container = Container(behaviors: [spy])

        let entry = container.register(Retriever.self) { _ in Retriever() }
            .implements(Animal.self, Walker.self, Swimmer.self)

        #expect(
            spy.calls.map(\.type)
                == [Retriever.self, Animal.self, Walker.self, Swimmer.self].map(ObjectIdentifier.init)
        )
        #expect(spy.calls.allSatisfy { $0.entry == ObjectIdentifier(entry) && $0.name == nil })
    }

    @Test("Behaviors are told in the order they were added, each registration before the next")
    func order() {
        let journal = Journal()
        let container = Container(behaviors: [Spy("first", journal: journal)])
        container.addBehavior(Spy("second", journal: journal))

        container.register(Dog.self) { _ in Dog(name: "Hachi") }
        container.register(Cat.self) { _ in Cat(name: "Mimi") }

        #expect(journal.calls.map(\.observer) == ["first", "second", "first", "second"])
        #expect(journal.calls.map(\.type) == [Dog.self, Dog.self, Cat.self, Cat.self].map(ObjectIdentifier.init))
    }

    @Test("A behavior added later is not told of earlier registrations")
    func addedLater() {
        let container = Container()
        container.register(Dog.self) { _ in Dog(name: "Hachi") }
        let spy = Spy("late")
        container.addBehavior(spy)
        container.register(Cat.self) { _ in Cat(name: "Mimi") }

        #expect(spy.calls.map(\.type) == [ObjectIdentifier(Cat.self)])
    }

    @Test("A child container's behaviors see its registrations, and its parent's behaviors do not")
    func childContainer() {
        let parentSpy = Spy("parent")
        let childSpy = Spy("child")
        let parent = Container(behaviors: [parentSpy])
        let child = Container(parent: parent, behaviors: [childSpy])

        let inChild = child.register(Dog.self) { _ in Dog(name: "Hachi") }
        let inParent = parent.register(Cat.self) { _ in Cat(name: "Mimi") }

        #expect(
            childSpy.calls == [
                Call(container: child, entry: inChild, type: Dog.self, service: Dog.self, name: nil, by: "child")
            ]
        )
        #expect(
            parentSpy.calls == [
                Call(container: parent, entry: inParent, type: Cat.self, service: Cat.self, name: nil, by: "parent")
            ]
        )
    }

    @Test("An assembler over a container with behaviors tells them of every registration its assemblies make")
    func assemblerOverContainer() throws {
        let spy = Spy("spy")
        let container = Container(behaviors: [spy])
        let assembler = Assembler([RetrieverAssembly()], container: container)

        #expect(assembler.resolver as? Container === container)
        #expect(spy.calls.map(\.container) == [ObjectIdentifier(container), ObjectIdentifier(container)])
        #expect(spy.calls.map(\.type) == [Retriever.self, Animal.self].map(ObjectIdentifier.init))
        #expect(spy.calls.map(\.name) == [nil, "pet"])
    }

    @Test("A child assembler's behaviors see its assemblies' registrations in the child's container")
    func childAssembler() throws {
        let parentSpy = Spy("parent")
        let parent = Assembler([], container: Container(behaviors: [parentSpy]))
        let spy = Spy("spy")
        let child = Assembler([RetrieverAssembly()], parent: parent, behaviors: [spy])

        let childContainer = try #require(child.resolver as? Container)
        #expect(childContainer !== parent.resolver as? Container)
        #expect(spy.calls.map(\.container) == [ObjectIdentifier(childContainer), ObjectIdentifier(childContainer)])
        #expect(spy.calls.map(\.type) == [Retriever.self, Animal.self].map(ObjectIdentifier.init))
        #expect(parentSpy.calls.isEmpty)
    }

    @Test("An empty child assembler's behaviors see assemblies applied later")
    func childAssemblerAppliedLater() throws {
        let spy = Spy("spy")
        let assembler = Assembler(parentAssembler: Assembler(), behaviors: [spy])
        #expect(spy.calls.isEmpty)

        assembler.apply(assembly: RetrieverAssembly())

        let container = try #require(assembler.resolver as? Container)
        #expect(spy.calls.map(\.container) == [ObjectIdentifier(container), ObjectIdentifier(container)])
        #expect(spy.calls.map(\.name) == [nil, "pet"])
    }
}

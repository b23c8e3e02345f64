import Foundation
import Keystone
import Testing

/// The examples of the DI Container guide, run as written (with `import Keystone`), their printed
/// output checked.
@Suite("The DI Container guide's examples")
struct SeedDIContainerTests {
    @Test("Registering and resolving a pet owner and its cat")
    func registration() {
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "Mimi") }
        container.register(Person.self) { r in
            PetOwner(name: "Stephen", pet: r.resolve(Animal.self)!)
        }

        let animal = container.resolve(Animal.self)!
        let person = container.resolve(Person.self)!
        let pet = (person as! PetOwner).pet

        #expect(animal.name == "Mimi")
        #expect(animal is Cat)
        #expect(person.name == "Stephen")
        #expect(person is PetOwner)
        #expect(pet.name == "Mimi")
        #expect(pet is Cat)
    }

    @Test("Named registrations tell two animals apart")
    func namedRegistration() {
        let container = Container()
        container.register(Animal.self, name: "cat") { _ in Cat(name: "Mimi") }
        container.register(Animal.self, name: "dog") { _ in Dog(name: "Hachi") }

        let cat = container.resolve(Animal.self, name: "cat")!
        let dog = container.resolve(Animal.self, name: "dog")!

        #expect(cat.name == "Mimi")
        #expect(cat is Cat)
        #expect(dog.name == "Hachi")
        #expect(dog is Dog)
    }

    @Test("Registrations with one and two runtime arguments")
    func registrationWithArguments() {
        let container = Container()
        container.register(Animal.self) { _, name in
            Horse(name: name)
        }
        container.register(Animal.self) { _, name, running in
            Horse(name: name, running: running)
        }

        let animal1 = container.resolve(Animal.self, argument: "Spirit")!
        #expect(animal1.name == "Spirit")
        #expect((animal1 as! Horse).running == false)

        let animal2 = container.resolve(Animal.self, arguments: "Lucky", true)!
        #expect(animal2.name == "Lucky")
        #expect((animal2 as! Horse).running == true)
    }

    @Test("Registrations with different service types coexist")
    func keysDifferByServiceType() {
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "Mimi") }
        container.register(Person.self) { r in
            PetOwner(name: "Stephen", pet: r.resolve(Animal.self)!)
        }
        #expect(container.resolve(Animal.self)?.name == "Mimi")
        #expect(container.resolve(Person.self)?.name == "Stephen")
    }

    @Test("Registrations with different names coexist")
    func keysDifferByName() {
        let container = Container()
        container.register(Animal.self, name: "cat") { _ in Cat(name: "Mimi") }
        container.register(Animal.self, name: "dog") { _ in Dog(name: "Hachi") }
        #expect(container.resolve(Animal.self, name: "cat") is Cat)
        #expect(container.resolve(Animal.self, name: "dog") is Dog)
    }

    @Test("Registrations with different argument counts coexist")
    func keysDifferByArgumentCount() {
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "Mimi") }
        container.register(Animal.self) { _, name in Cat(name: name) }
        #expect(container.resolve(Animal.self)?.name == "Mimi")
        #expect(container.resolve(Animal.self, argument: "Tama")?.name == "Tama")
    }

    @Test("Registrations with arguments in a different order coexist")
    func keysDifferByArgumentOrder() {
        let container = Container()
        container.register(Animal.self) { _, name, running in
            Horse(name: name, running: running)
        }
        container.register(Animal.self) { _, running, name in
            Horse(name: name, running: running)
        }
        let first = container.resolve(Animal.self, arguments: "Lucky", true) as? Horse
        let second = container.resolve(Animal.self, arguments: false, "Spirit") as? Horse
        #expect(first?.name == "Lucky" && first?.running == true)
        #expect(second?.name == "Spirit" && second?.running == false)
    }

    @Test("The remark: argument types must be inferred exactly as registered")
    func remarkOnArgumentTypes() {
        let container = Container()
        // Registers with name argument as String.
        container.register(Animal.self) { _, name in Cat(name: name) }

        let name1: String = "Mimi"
        let mimi1 = container.resolve(Animal.self, argument: name1)
        #expect(mimi1 is Cat)

        let name2: NSString = "Mimi"
        let mimi2 = container.resolve(Animal.self, argument: name2)
        #expect(mimi2 == nil)

        let name3: String? = "Mimi"
        let mimi3 = container.resolve(Animal.self, argument: name3)
        #expect(mimi3 == nil)

        let name4: String! = "Mimi"
        let mimi4 = container.resolve(Animal.self, argument: name4)
        #expect(mimi4 == nil)
    }
}

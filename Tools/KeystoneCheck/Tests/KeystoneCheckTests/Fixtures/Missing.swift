import Keystone

typealias Storage = Database

final class PetAssembly: Assembly {
    func assemble(container: Container) {
        container.register(Database.self) { _ in Database() }
        container.register(Animal.self, name: "cat") { _ in Cat() }
        container.register(Animal.self) { _, name: String in Dog(name: name) }
        container.register(Shelter.self) { r in
            Shelter(
                storage: r.resolve(Storage.self)!,
                dog: r.resolve(Animal.self, name: "dog")!,
                clock: try r.resolveThrows(Clock.self)
            )
        }
        container.register(Vet.self) { resolver in
            Vet(animal: resolver.resolve(Animal.self, arguments: "Rex", 3)!)
        }
        .initCompleted { r, vet in
            vet.shelter = r.resolve(Optional<Shelter>.self)!
            vet.schedule = r.resolve(Schedule?.self)!
        }
    }
}

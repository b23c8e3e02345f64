import Keystone
protocol Animal {}
final class Owner { init(pet: any Animal) {} }
final class Shelter { init(adopt: @escaping (any Animal) -> Owner) {} }
// Migrated to ExistentialAny in this file...
func registerOwners(_ container: Container) {
    container.register(((any Animal) -> Owner).self) { _ in { pet in Owner(pet: pet) } }
}

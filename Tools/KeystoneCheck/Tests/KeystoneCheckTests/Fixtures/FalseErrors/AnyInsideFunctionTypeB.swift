import Keystone
// ...not yet in this one.
func registerShelter(_ container: Container) {
    container.register(Shelter.self) { r in
        Shelter(adopt: r.resolve(((Animal) -> Owner).self)!)
    }
}

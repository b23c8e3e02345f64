import Keystone

protocol AgreementPet: Sendable {}
final class AgreementCat: AgreementPet {}
final class AgreementOwner: Sendable {
    init(pet: (any AgreementPet)?, home: AgreementHome?) {}
}
final class AgreementHome: Sendable {}

/// A resolve of a name nothing registers, next to the same type under another name.
enum MissingGraph {
    static func make() -> Container {
        let container = Container()
        container.register(AgreementPet.self, name: "cat") { _ in AgreementCat() }
        container.register(AgreementOwner.self) { r in
            AgreementOwner(pet: r.resolve(AgreementPet.self, name: "dog"), home: r.resolve(AgreementHome.self))
        }
        return container
    }
}

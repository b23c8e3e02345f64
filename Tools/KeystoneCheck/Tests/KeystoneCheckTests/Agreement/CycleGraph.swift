import Keystone

final class AgreementShip: @unchecked Sendable {
    var captain: AgreementCaptain?
    init(captain: AgreementCaptain?) { self.captain = captain }
}
final class AgreementCaptain: @unchecked Sendable {
    var ship: AgreementShip?
    init(ship: AgreementShip?) { self.ship = ship }
}
final class AgreementParent: @unchecked Sendable {
    let child: AgreementChild?
    init(child: AgreementChild?) { self.child = child }
}
final class AgreementChild: @unchecked Sendable {
    weak var parent: AgreementParent?
}

/// Two factories that need each other, and a parent and child whose cycle `initCompleted` breaks.
enum CycleGraph {
    static func make() -> Container {
        let container = Container()
        container.register(AgreementShip.self) { r in AgreementShip(captain: r.resolve(AgreementCaptain.self)) }
        container.register(AgreementCaptain.self) { r in AgreementCaptain(ship: r.resolve(AgreementShip.self)) }
        container.register(AgreementParent.self) { r in AgreementParent(child: r.resolve(AgreementChild.self)) }
        container.register(AgreementChild.self) { _ in AgreementChild() }
            .initCompleted { r, child in child.parent = r.resolve(AgreementParent.self) }
        return container
    }
}

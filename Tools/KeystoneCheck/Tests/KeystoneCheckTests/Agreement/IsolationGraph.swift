import Keystone

final class AgreementRemote: Sendable {}
final class AgreementWarm: Sendable {}
final class AgreementScreen: Sendable {}
final class AgreementUser: Sendable {
    init(remote: AgreementRemote?, warm: AgreementWarm?) {}
}
final class AgreementViewer: Sendable {
    init(screen: AgreementScreen?) {}
}

/// Synchronous factories that need async and main-actor registrations, one of which `warmUp()` creates.
enum IsolationGraph {
    static func make() -> Container {
        let container = Container()
        container.registerAsync(AgreementRemote.self) { _ in AgreementRemote() }
        container.registerAsync(AgreementWarm.self) { _ in AgreementWarm() }.inObjectScope(.container)
        container.register(AgreementScreen.self, mainActorFactory: { _ in AgreementScreen() })
        container.register(AgreementUser.self) { r in
            AgreementUser(remote: r.resolve(AgreementRemote.self), warm: r.resolve(AgreementWarm.self))
        }
        container.register(AgreementViewer.self) { r in AgreementViewer(screen: r.resolve(AgreementScreen.self)) }
        return container
    }
}

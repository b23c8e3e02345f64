import Keystone

protocol AgreementClock: Sendable {}
final class AgreementSystemClock: AgreementClock {}
final class AgreementScheduler: Sendable {
    init(clock: any AgreementClock, label: String) {}
}
final class AgreementJob: Sendable {
    init(name: String, scheduler: AgreementScheduler) {}
}
typealias AgreementTimeSource = AgreementClock

/// A graph without mistakes: names, arguments, an alias and a forwarded type.
enum CleanGraph {
    static func make() -> Container {
        let container = Container()
        container.register(AgreementClock.self) { _ in AgreementSystemClock() }.inObjectScope(.container)
        container.register(String.self, name: "label") { _ in "main" }
        container.register(AgreementScheduler.self) { r in
            AgreementScheduler(clock: r.resolve(AgreementTimeSource.self)!, label: r.resolve(String.self, name: "label")!)
        }
        container.register(AgreementJob.self) { r, name in
            AgreementJob(name: name, scheduler: r.resolve(AgreementScheduler.self)!)
        }
        return container
    }
}

import Foundation
import Testing

@testable import Keystone

// MARK: - The test target's root module, chosen per test

/// What the test target's root module does in the current task. A target may declare
/// `extension Registry: RegistryModule` once; this is it, and each test binds its own plan (with
/// ``withRegistryTestbed(importing:onStartup:onShutdown:_:)``), so tests running in parallel start
/// different module graphs.
final class RegistryPlan: @unchecked Sendable {
    // @unchecked: every property is a `let`, set before the plan is bound; the closures are called only
    // by the task that bound the plan and its children, through `Registry.performStartup()` and
    // `performShutdown()`, which serialize on the current container's lock.

    @TaskLocal static var current: RegistryPlan?

    let imports: [any RegistryModule.Type]
    let startup: () -> Void
    let shutdown: () -> Void

    init(imports: [any RegistryModule.Type], startup: @escaping () -> Void, shutdown: @escaping () -> Void) {
        self.imports = imports
        self.startup = startup
        self.shutdown = shutdown
    }
}

// `Registry` and `RegistryModule` are both public, so the root module's functions must be public too.
extension Registry: RegistryModule {
    /// The modules the current test's plan imports.
    public static func imports() -> [RegistryModule.Type] {
        RegistryPlan.current?.imports ?? []
    }

    /// Notes the startup and runs the current test's plan.
    public static func onStartup() {
        FrontJournal.note("Registry.startup")
        RegistryPlan.current?.startup()
    }

    /// Notes the shutdown and runs the current test's plan.
    public static func onShutdown() {
        FrontJournal.note("Registry.shutdown")
        RegistryPlan.current?.shutdown()
    }
}

/// Events noted by modules and services of the fronts' tests, per test (task-local), so that tests in
/// parallel never count each other's events.
final class FrontJournal: @unchecked Sendable {
    // @unchecked: `events` is read and written only under `lock`.

    @TaskLocal static var current: FrontJournal?

    private let lock = NSLock()
    private var events: [String] = []

    /// Notes `event` in the current test's journal.
    static func note(_ event: String) {
        current?.append(event)
    }

    private func append(_ event: String) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    /// Every event, in order.
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }

    /// How many times `event` was noted.
    func count(_ event: String) -> Int {
        all.filter { $0 == event }.count
    }

    /// The events that start with `prefix`, in order.
    func events(startingWith prefix: String) -> [String] {
        all.filter { $0.hasPrefix(prefix) }
    }
}

/// Runs `body` with a container of its own current, a journal of its own, and the root module importing
/// `imports` and running `onStartup`/`onShutdown` after noting `Registry.startup`/`Registry.shutdown`.
func withRegistryTestbed<Result>(
    importing imports: [any RegistryModule.Type] = [],
    onStartup: @escaping () -> Void = {},
    onShutdown: @escaping () -> Void = {},
    _ body: (FrontJournal) throws -> Result
) rethrows -> Result {
    let journal = FrontJournal()
    let plan = RegistryPlan(imports: imports, startup: onStartup, shutdown: onShutdown)
    return try Container.withCurrent(Container()) {
        try FrontJournal.$current.withValue(journal) {
            try RegistryPlan.$current.withValue(plan) {
                try body(journal)
            }
        }
    }
}

/// The warnings the Registry printed for the current container.
private func registryWarnings() -> [String] {
    FrontContext.current.withState { $0.registry.warnings }
}

// MARK: - Fixtures

/// A module that notes its startup and shutdown, and imports what `imported` says.
private protocol NotingModule: RegistryModule {
    static var label: String { get }
    static var imported: [any RegistryModule.Type] { get }
}

extension NotingModule {
    static var imported: [any RegistryModule.Type] { [] }
    static func imports() -> [any RegistryModule.Type] { imported }
    static func onStartup() { FrontJournal.note("\(label).startup") }
    static func onShutdown() { FrontJournal.note("\(label).shutdown") }
}

// A diamond: Top imports Left and Right, which both import Base.
private enum Base: NotingModule {
    static let label = "Base"
}

private enum Left: NotingModule {
    static let label = "Left"
    static var imported: [any RegistryModule.Type] { [Base.self] }
}

private enum Right: NotingModule {
    static let label = "Right"
    static var imported: [any RegistryModule.Type] { [Base.self] }
}

private enum Top: NotingModule {
    static let label = "Top"
    static var imported: [any RegistryModule.Type] { [Left.self, Right.self, Base.self] }
}

// A cycle: Ping imports Pong, which imports Ping.
private enum Ping: NotingModule {
    static let label = "Ping"
    static var imported: [any RegistryModule.Type] { [Pong.self] }
}

private enum Pong: NotingModule {
    static let label = "Pong"
    static var imported: [any RegistryModule.Type] { [Ping.self] }
}

private final class Engine {
    init() { FrontJournal.note("Engine.init") }
}

private final class Radio {
    init() { FrontJournal.note("Radio.init") }
}

private final class Lights {
    init() { FrontJournal.note("Lights.init") }
}

private final class Dashboard {
    @Inject var engine: Engine
    @Inject var radio: Radio
    @Inject var lights: Lights
}

private enum CarModule: RegistryModule {
    static func onStartup() {
        register { Engine() }
        lazy { Radio() }
        eager { Lights() }
    }
}

private final class Wiring: PostConstruct {
    init() { FrontJournal.note("Wiring.init") }
    func postConstruct() { FrontJournal.note("Wiring.postConstruct") }
}

private struct Mileage: PostConstruct, Equatable {
    var kilometres = 0
    func postConstruct() { FrontJournal.note("Mileage.postConstruct") }
}

private protocol Horn: AnyObject {
    var sound: String { get }
}

private final class Beep: Horn {
    let sound = "beep"
}

private final class Honk: Horn {
    let sound = "honk"
}

// MARK: - Tests

@Suite("Registry modules: imports, startup and shutdown")
struct RegistryModuleTests {
    @Test("A diamond of imports starts each module once, after its imports, and warns once")
    func diamondStartsEachModuleOnce() {
        withRegistryTestbed(importing: [Top.self]) { journal in
            Registry.performStartup()

            #expect(
                journal.events(startingWith: "").filter { $0.hasSuffix(".startup") }
                    == ["Base.startup", "Left.startup", "Right.startup", "Top.startup", "Registry.startup"]
            )
            let warnings = registryWarnings()
            #expect(warnings.count == 1)
            #expect(warnings.first?.contains("Base is imported more than once") == true)
        }
    }

    @Test("Shutdown runs each started module's onShutdown once, in reverse startup order")
    func shutdownRunsInReverseOrder() {
        withRegistryTestbed(importing: [Top.self]) { journal in
            Registry.performStartup()
            Registry.performShutdown()

            #expect(
                journal.all.filter { $0.hasSuffix(".shutdown") }
                    == ["Registry.shutdown", "Top.shutdown", "Right.shutdown", "Left.shutdown", "Base.shutdown"]
            )
        }
    }

    @Test("Modules that import each other in a cycle start once each, with a warning naming the cycle")
    func importCycleStartsOnceAndWarns() {
        withRegistryTestbed(importing: [Ping.self]) { journal in
            Registry.performStartup()

            #expect(journal.all == ["Pong.startup", "Ping.startup", "Registry.startup"])
            #expect(registryWarnings().count == 1)
            #expect(registryWarnings().first?.contains("Ping -> Pong -> Ping") == true)
        }
    }

    @Test("Starting twice warns and does nothing the second time")
    func startingTwiceWarns() {
        withRegistryTestbed(importing: [Base.self]) { journal in
            Registry.performStartup()
            Registry.performStartup()

            #expect(journal.count("Base.startup") == 1)
            #expect(registryWarnings().count == 1)
            #expect(registryWarnings().first?.contains("already started") == true)
        }
    }

    @Test("Shutting down without a startup, or twice, warns and does nothing")
    func shuttingDownWithoutStartupWarns() {
        withRegistryTestbed(importing: [Base.self]) { journal in
            Registry.performShutdown()
            Registry.performStartup()
            Registry.performShutdown()
            Registry.performShutdown()

            #expect(journal.count("Base.shutdown") == 1)
            #expect(registryWarnings().count == 2)
            #expect(registryWarnings().allSatisfy { $0.contains("not started") })
        }
    }

    @Test("A startup from inside onStartup warns instead of recursing")
    func startupFromInsideStartupWarns() {
        withRegistryTestbed(onStartup: { Registry.performStartup() }) { journal in
            Registry.performStartup()

            #expect(journal.count("Registry.startup") == 1)
            #expect(registryWarnings().first?.contains("while Registry.performStartup() is running") == true)
        }
    }

    @Test("After a shutdown the registry starts again from scratch")
    func restartsAfterShutdown() {
        withRegistryTestbed(importing: [CarModule.self]) { journal in
            Registry.performStartup()
            let first = Registry.resolve(Engine.self)
            Registry.performShutdown()
            #expect(Container.current.resolve(Engine.self) == nil)

            Registry.performStartup()
            let second = Registry.resolve(Engine.self)

            #expect(first !== second)
            #expect(journal.count("Lights.init") == 2)
            #expect(registryWarnings().isEmpty)
        }
    }

    @Test("Without a root module, startup fails with a message that shows the declaration to add")
    func missingRootModuleFails() {
        let error = Container.withCurrent(Container()) {
            #expect(throws: DIError.self) {
                try Registry.startup(root: nil, in: .current)
            }
        }
        guard case .invalidUsage(let message) = error else {
            Issue.record("expected invalidUsage, got \(String(describing: error))")
            return
        }
        #expect(message.contains("found no root module"))
        #expect(message.contains("extension Registry: RegistryModule"))
    }

    @Test("Startup state belongs to the current container")
    func startupStateIsPerContainer() {
        withRegistryTestbed(importing: [Base.self]) { journal in
            Registry.performStartup()
            Container.withCurrent(Container()) {
                Registry.performStartup()
            }
            Registry.performStartup()

            #expect(journal.count("Base.startup") == 2)
            #expect(registryWarnings().count == 1)
        }
    }

    @Test("Binding the same container again finds the registry it started")
    func sameContainerKeepsItsStartupState() {
        let container = Container()
        withRegistryTestbed(importing: [Base.self]) { journal in
            Container.withCurrent(container) { Registry.performStartup() }
            Container.withCurrent(container) { Registry.performShutdown() }

            #expect(journal.all == ["Base.startup", "Registry.startup", "Registry.shutdown", "Base.shutdown"])
        }
    }
}

@Suite("Registry services: lifecycles, sharing, replacement")
struct RegistryServiceTests {
    @Test("Eager services exist right after startup, injection ones when injected, lazy ones on first use")
    func realizationTimes() {
        withRegistryTestbed(importing: [CarModule.self]) { journal in
            #expect(journal.count("Lights.init") == 0)
            Registry.performStartup()
            #expect(journal.count("Lights.init") == 1)
            #expect(journal.count("Engine.init") == 0)
            #expect(journal.count("Radio.init") == 0)

            let dashboard = Dashboard()
            #expect(journal.count("Engine.init") == 1)
            #expect(journal.count("Radio.init") == 0)

            _ = dashboard.radio
            _ = dashboard.radio
            #expect(journal.count("Radio.init") == 1)
            #expect(journal.count("Lights.init") == 1)
        }
    }

    @Test("Realized services are shared: every injection and resolve gets the same instance")
    func servicesAreShared() {
        withRegistryTestbed(importing: [CarModule.self]) { journal in
            Registry.performStartup()
            let one = Dashboard()
            let two = Dashboard()

            #expect(one.engine === two.engine)
            #expect(one.radio === two.radio)
            #expect(one.lights === Registry.resolve(Lights.self))
            #expect(journal.count("Engine.init") == 1)
        }
    }

    @Test("Value-type services are shared too: the factory runs once")
    func valueServicesAreShared() {
        withRegistryTestbed(onStartup: { Registry.register { Mileage(kilometres: 42) } }) { journal in
            Registry.performStartup()

            #expect(Registry.resolve(Mileage.self) == Mileage(kilometres: 42))
            #expect(Registry.resolve(Mileage.self) == Mileage(kilometres: 42))
            #expect(journal.count("Mileage.postConstruct") == 1)
        }
    }

    @Test("PostConstruct runs once per realized instance, after the factory")
    func postConstructRunsOnce() {
        withRegistryTestbed(onStartup: { Registry.lazy { Wiring() } }) { journal in
            Registry.performStartup()
            #expect(journal.all == ["Registry.startup"])

            _ = Registry.resolve(Wiring.self)
            _ = Registry.resolve(Wiring.self)

            #expect(journal.all == ["Registry.startup", "Wiring.init", "Wiring.postConstruct"])
        }
    }

    @Test("ServiceOptions.lifecycle changes when a registered service is realized")
    func lifecycleOptionChangesRealization() {
        let startup = {
            Registry.register { Engine() }.lifecycle(.eager)
            Registry.eager { Radio() }.lifecycle(.injection)
        }
        withRegistryTestbed(onStartup: startup) { journal in
            Registry.performStartup()

            #expect(journal.count("Engine.init") == 1)
            #expect(journal.count("Radio.init") == 0)
        }
    }

    @Test("An eager service registered after startup is realized at once")
    func eagerAfterStartupIsRealizedAtOnce() {
        withRegistryTestbed { journal in
            Registry.performStartup()
            CarModule.eager { Lights() }

            #expect(journal.count("Lights.init") == 1)
        }
    }

    @Test("Registering again replaces the registration, drops its instance and warns; override does not warn")
    func registeringAgainReplaces() {
        withRegistryTestbed { _ in
            Registry.register(Horn.self) { Beep() }
            weak var firstBeep: Horn?
            do {
                let beep = Registry.resolve(Horn.self)
                firstBeep = beep
                #expect(beep.sound == "beep")
            }
            #expect(firstBeep != nil, "the realized service is kept")
            #expect(registryWarnings().isEmpty)

            Registry.register(Horn.self) { Honk() }
            let honk = Registry.resolve(Horn.self)
            #expect(honk.sound == "honk")
            #expect(firstBeep == nil, "the replaced registration's instance was dropped")
            #expect(registryWarnings().count == 1)
            #expect(registryWarnings().first?.contains("Horn is registered again") == true)

            Registry.override(Horn.self) { Beep() }
            let replaced = Registry.resolve(Horn.self)
            #expect(replaced.sound == "beep")
            #expect(replaced !== honk)
            #expect(registryWarnings().count == 1)
        }
    }

    @Test("Service ids tell apart registrations of the same type")
    func serviceIdsTellRegistrationsApart() {
        let startup = {
            Registry.register(Horn.self) { Beep() }
            Registry.register(Horn.self, serviceId: "truck") { Honk() }
        }
        withRegistryTestbed(onStartup: startup) { _ in
            Registry.performStartup()
            let plain = Inject<any Horn>()
            let truck = Inject<any Horn>("truck")

            #expect(plain.wrappedValue.sound == "beep")
            #expect(truck.wrappedValue.sound == "honk")
            #expect(Container.current.registeredCount() == 2)
        }
    }

    @Test("Shutdown removes the modules' services and their instances, after onShutdown could use them")
    func shutdownRemovesServices() {
        let shutdown = { #expect(Registry.resolve(Engine.self) === Registry.resolve(Engine.self)) }
        withRegistryTestbed(importing: [CarModule.self], onShutdown: shutdown) { _ in
            Registry.performStartup()
            #expect(Container.current.registeredCount() == 3)

            Registry.performShutdown()

            #expect(Container.current.registeredCount() == 0)
        }
    }
}

@Suite("Registry failures stop the program with a message that says how to fix it")
struct RegistryFailureTests {
    @Test("Resolving an unregistered service names it and the service ids it is registered under")
    func resolvingUnregisteredStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Container.withCurrent(Container()) {
                Registry.register(Horn.self, serviceId: "truck") { Honk() }
                _ = Registry.resolve(Horn.self)
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Registry.resolve() could not resolve Horn"))
        #expect(message.contains("Registered for Horn: Horn named \"truck\""))
        #expect(message.contains("Registry.performStartup() has not run"))
    }
}

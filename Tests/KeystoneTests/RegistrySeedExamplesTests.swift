import Keystone
import Testing

// The Registry guide's examples, with `import Keystone` for the guide's import. Each snippet lives in an
// enum of its own so that the guide's names (two `MyModule`s) can stay as written.

private class MyService {
    init() { FrontJournal.note("MyService.init") }
}

private class MyCustomService: MyService {}

private class MyLazyService {
    init() { FrontJournal.note("MyLazyService.init") }
}

private class MyEagerService {
    init() { FrontJournal.note("MyEagerService.init") }
}

private class MyOtherModule: RegistryModule {
    static func onStartup() {
        FrontJournal.note("MyOtherModule.startup")
    }
}

/// "Modules": a module with the three registration calls and the optional parts.
private enum ModulesExample {
    class MyModule: RegistryModule {

        // Optional
        func imports() -> [RegistryModule.Type] {
            [MyOtherModule.self]
        }

        static func onStartup() {

            register {
                MyService()
            }

            lazy {
                MyLazyService()
            }

            eager {
                MyEagerService()
            }
        }

        // Optional
        static func onShutdown() {
            // ...
            FrontJournal.note("MyModule.shutdown")
        }
    }

    /// The same module with `imports()` as the protocol declares it: a static function.
    class MyImportingModule: RegistryModule {
        static func imports() -> [RegistryModule.Type] {
            [MyOtherModule.self]
        }

        static func onStartup() {
            FrontJournal.note("MyImportingModule.startup")
        }
    }

    class Consumer {
        @Inject var service: MyService
        @Inject var lazyService: MyLazyService
        @Inject var eagerService: MyEagerService
    }
}

/// "Custom Service IDs".
private enum ServiceIdsExample {
    class MyModule: RegistryModule {

        static func onStartup() {

            register {
                MyService()
            }

            register(MyService.self, serviceId: "custom-my-service") {
                MyCustomService()
            }
        }
    }

    class UseMutlipleServices {

        @Inject var originalService: MyService
        @Inject("custom-my-service") var customService: MyService
    }
}

/// "There are multiple methods available": a protocol as the service definition, an implementation injected.
private protocol Clock {
    var name: String { get }
}

private struct SystemClock: Clock {
    let name = "system"
}

private enum DefinitionsExample {
    enum ClockModule: RegistryModule {
        static func onStartup() {
            register(Clock.self) { SystemClock() }
            register { MyLazyService() }.lifecycle(.lazy)
            register { MyEagerService() }.lifecycle(.eager)
        }
    }

    enum OverridingModule: RegistryModule {
        static func imports() -> [RegistryModule.Type] {
            [ClockModule.self]
        }

        static func onStartup() {
            override(Clock.self) { FixedClock() }
        }
    }

    struct FixedClock: Clock {
        let name = "fixed"
    }
}

/// "PostConstruct": observers that need `self` are registered after realization.
private final class Announcer {
    private var listeners: [AnyObject] = []
    func subscribe(_ listener: AnyObject) { listeners.append(listener) }
    var count: Int { listeners.count }
}

private final class Listener: PostConstruct {
    @Inject var announcer: Announcer

    func postConstruct() {
        announcer.subscribe(self)
    }
}

private enum PostConstructExample {
    enum Module: RegistryModule {
        static func onStartup() {
            register { Announcer() }
            eager { Listener() }
        }
    }
}

@Suite("The Registry guide's examples")
struct RegistrySeedExamplesTests {
    @Test("Modules: register, lazy and eager realize on injection, first use and startup")
    func modulesExample() {
        withRegistryTestbed(importing: [ModulesExample.MyModule.self]) { journal in
            Registry.performStartup()
            #expect(journal.count("MyEagerService.init") == 1)
            #expect(journal.count("MyService.init") == 0)
            #expect(journal.count("MyLazyService.init") == 0)

            let consumer = ModulesExample.Consumer()
            #expect(journal.count("MyService.init") == 1)
            #expect(journal.count("MyLazyService.init") == 0)

            _ = consumer.lazyService
            #expect(journal.count("MyLazyService.init") == 1)
            #expect(consumer.eagerService === Registry.resolve(MyEagerService.self))

            Registry.performShutdown()
            #expect(journal.count("MyModule.shutdown") == 1)
        }
    }

    @Test("Modules: an instance method imports() is not the protocol's; the static one imports first")
    func importsExample() {
        let modules: [any RegistryModule.Type] = [ModulesExample.MyModule.self, ModulesExample.MyImportingModule.self]
        withRegistryTestbed(importing: modules) { journal in
            Registry.performStartup()

            #expect(
                journal.all.filter { $0.hasSuffix(".startup") }
                    == ["MyOtherModule.startup", "MyImportingModule.startup", "Registry.startup"]
            )
        }
    }

    @Test("Submodules: a module imported several times registers once")
    func submodulesExample() {
        let modules: [any RegistryModule.Type] = [
            ModulesExample.MyImportingModule.self, MyOtherModule.self, ModulesExample.MyImportingModule.self,
        ]
        withRegistryTestbed(importing: modules) { journal in
            Registry.performStartup()

            #expect(journal.count("MyOtherModule.startup") == 1)
            #expect(journal.count("MyImportingModule.startup") == 1)
        }
    }

    @Test("Methods: a protocol as the service definition, ServiceOptions and override")
    func definitionsExample() {
        withRegistryTestbed(importing: [DefinitionsExample.OverridingModule.self]) { journal in
            Registry.performStartup()

            let clock: Clock = Registry.resolve()
            #expect(clock.name == "fixed")
            #expect(journal.count("MyEagerService.init") == 1)
            #expect(journal.count("MyLazyService.init") == 0)
        }
    }

    @Test("Resolve: Registry.resolve returns the shared instance, with or without the type argument")
    func resolveExample() {
        withRegistryTestbed(importing: [ModulesExample.MyModule.self]) { _ in
            Registry.performStartup()

            let inferred: MyService = Registry.resolve()
            let explicit = Registry.resolve(MyService.self)

            #expect(inferred === explicit)
        }
    }

    @Test("PostConstruct: a service subscribes itself once it is realized")
    func postConstructExample() {
        withRegistryTestbed(importing: [PostConstructExample.Module.self]) { _ in
            Registry.performStartup()

            #expect(Registry.resolve(Announcer.self).count == 1)
            #expect(Registry.resolve(Listener.self).announcer === Registry.resolve(Announcer.self))
        }
    }

    @Test("Custom Service IDs: the same type registered under two ids")
    func serviceIdsExample() {
        withRegistryTestbed(importing: [ServiceIdsExample.MyModule.self]) { _ in
            Registry.performStartup()

            let services = ServiceIdsExample.UseMutlipleServices()

            #expect(type(of: services.originalService) == MyService.self)
            #expect(services.customService is MyCustomService)
            #expect(services.originalService === Registry.resolve(MyService.self))
        }
    }
}

// swift-format-ignore-file
// (The samples here mirror the articles' text line for line: see ArticleSamplesTests.)
import Keystone
import Testing

// The samples of ModulesAndLifecycles.md, verbatim, each followed by the facts the article states about
// it. The article's modules and services are nested in the suite below; the services note their
// creation in the test's journal (see RegistryTests.swift), which is how the tests observe lifecycles.
//
// The test target declares its one root module in RegistryTests.swift: a target may declare
// `extension Registry: RegistryModule` only once. So the article's root module cannot be compiled here
// a second time. It is kept below, verbatim, and `withRegistryTestbed(importing: [FeedModule.self])`
// gives the test target's root module exactly those imports:
//
/*
extension Registry: RegistryModule {
    public static func imports() -> [any RegistryModule.Type] {
        [FeedModule.self]
    }

    public static func onStartup() {}
}
*/

@Suite("Article: Modules and Lifecycles")
struct ModulesAndLifecyclesArticleTests {
    @Test("Startup loads imports first and realizes eager services; shutdown runs in reverse and removes")
    func startupAndShutdown() {
        withRegistryTestbed(importing: [FeedModule.self]) { journal in
            Registry.performStartup()
            let loader: FeedLoader = Registry.resolve()
            // ...
            Registry.performShutdown()

            #expect(
                journal.all == [
                    "Registry.startup",  // the root module starts after the modules it imports
                    "CrashReporter.init",  // eager: at the end of startup
                    "MemoryStore.init",  // injected into the FeedLoader
                    "FeedLoader.init",  // on injection: when Registry.resolve() asked
                    "Registry.shutdown",  // shutdown runs in reverse order: the root first,
                    "MemoryStore.flush",  // StorageModule last, while its services still resolve
                ]
            )
            #expect(loader.store is MemoryStore)
            #expect(Container.current.resolve(FeedLoader.self) == nil, "shutdown removed the services")
            #expect(Container.current.resolve(KeyValueStore.self) == nil)
        }
    }

    @Test("Property wrappers resolve on creation, on first read, by service id, and per owner")
    func propertyWrappers() {
        withRegistryTestbed(importing: [FeedModule.self]) { journal in
            Registry.performStartup()
            let screen = FeedScreen()
            #expect(journal.count("FeedLoader.init") == 1, "@Inject resolved when the screen was created")
            #expect(journal.count("SearchIndex.init") == 0, "a .lazy service waits for the first read")
            #expect(journal.count("FeedArchive.init") == 0, "@LazyInject waits for the first read")

            #expect(screen.loader === Registry.resolve(FeedLoader.self))
            #expect(screen.cache !== Registry.resolve(KeyValueStore.self), "service id \"cache\" is another registration")
            #expect(screen.draft !== Registry.resolve(FeedDraft.self), "scope .unique gives a new FeedDraft")
            #expect(screen.analytics == nil)

            _ = screen.index
            #expect(journal.count("SearchIndex.init") == 1)
            #expect(screen.index === Registry.resolve(SearchIndex.self), "a realized service is shared")
            _ = screen.archive
            #expect(journal.count("FeedArchive.init") == 1)
            #expect(screen.archive === Registry.resolve(FeedArchive.self))
        }
    }

    @Test("Registry.resolve realizes a .lazy service at once; lifecycle(_:) changes the lifecycle")
    func resolveRealizesLazyServices() {
        withRegistryTestbed(importing: [StorageModule.self]) { journal in
            Registry.performStartup()
            #expect(journal.count("SearchIndex.init") == 0)
            _ = Registry.resolve(SearchIndex.self)
            #expect(journal.count("SearchIndex.init") == 1)
        }
        withRegistryTestbed(onStartup: { Registry.register { SearchIndex() }.lifecycle(.eager) }) { journal in
            Registry.performStartup()
            #expect(journal.count("SearchIndex.init") == 1, "made eager with lifecycle(.eager)")
        }
    }

    @Test("A PostConstruct service subscribes itself once it is created")
    func postConstruct() {
        withRegistryTestbed(importing: [SyncModule.self]) { _ in
            Registry.performStartup()

            let hub = Registry.resolve(EventHub.self)
            #expect(hub.subscribers.count == 1)
            #expect(hub.subscribers.first === Registry.resolve(SyncEngine.self))
        }
    }

    @Test("A service of a module is an ordinary registration of the current container")
    func oneEngine() {
        withRegistryTestbed(importing: [FeedModule.self]) { _ in
            Registry.performStartup()
            let fromModule: FeedLoader = Registry.resolve()
            let fromFacade: FeedLoader = DependencyRegistry.resolve()
            #expect(fromFacade === fromModule)
            #expect(Container.current.synchronize().resolve(FeedLoader.self) === fromModule)
            #expect(Container.current.verify() == [])
        }
    }

    @Test("DependencyRegistry shares a class, makes .unique anew, and is nil for what is not registered")
    func dependencyRegistry() {
        Container.withCurrent(Container()) {
            DependencyRegistry.register { () -> KeyValueStore in MemoryStore() }
            DependencyRegistry.register { FeedLoader() }

            let store: KeyValueStore = DependencyRegistry.resolve()
            let sameStore: KeyValueStore = DependencyRegistry.resolve()              // the shared MemoryStore
            let newStore: KeyValueStore = DependencyRegistry.resolve(scope: .unique) // a new MemoryStore
            let index: SearchIndex? = DependencyRegistry.optional()                  // nil: not registered

            #expect(store is MemoryStore)
            #expect(sameStore === store)
            #expect(newStore !== store)
            #expect(index == nil)
            let loader: FeedLoader = DependencyRegistry.resolve()
            #expect(loader.store === store)
        }
    }

    @Test("DependencyRegistry: the rules the article lists")
    func dependencyRegistryRules() {
        Container.withCurrent(Container()) {
            // Without the return type, the concrete class is registered, not the protocol.
            DependencyRegistry.register { MemoryStore() }
            #expect((DependencyRegistry.optional() as KeyValueStore?) == nil)
            #expect((DependencyRegistry.optional() as MemoryStore?) != nil)

            // A struct is created anew on every resolve.
            let made = Counter()
            DependencyRegistry.register { () -> Settings in
                made.increment()
                return Settings()
            }
            _ = DependencyRegistry.resolve() as Settings
            _ = DependencyRegistry.resolve() as Settings
            #expect(made.count == 2)

            // Registering again replaces the instantiator and drops the shared instance.
            let first: MemoryStore = DependencyRegistry.resolve()
            DependencyRegistry.register { MemoryStore() }
            #expect((DependencyRegistry.resolve() as MemoryStore) !== first)

            // An Optional type always resolves to nil.
            DependencyRegistry.register { () -> FeedDraft? in FeedDraft() }
            #expect((DependencyRegistry.resolve() as FeedDraft?) == nil)

            // reset() removes what DependencyRegistry registered, and nothing else.
            Container.current.register(FeedArchive.self) { _ in FeedArchive() }
            DependencyRegistry.reset()
            #expect((DependencyRegistry.optional() as MemoryStore?) == nil)
            #expect((DependencyRegistry.optional() as FeedArchive?) != nil)
        }
    }

    @Test("An instance created by DependencyRegistry is post-constructed; one registered directly is not")
    func postConstructFrontsOnly() {
        Container.withCurrent(Container()) {
            DependencyRegistry.register { EventHub() }
            DependencyRegistry.register { SyncEngine() }
            let engine: SyncEngine = DependencyRegistry.resolve()
            #expect(engine.hub.subscribers.count == 1)

            let container = Container()
            container.register(EventHub.self) { _ in EventHub() }.inObjectScope(.container)
            container.register(SyncEngine.self) { _ in SyncEngine() }
            let direct = Container.withCurrent(container) { container.resolve(SyncEngine.self) }
            #expect(container.resolve(EventHub.self)?.subscribers.isEmpty == true)
            #expect(direct != nil)
        }
    }
}

// MARK: - The article's modules and services

extension ModulesAndLifecyclesArticleTests {
    enum StorageModule: RegistryModule {
        static func onStartup() {
            register(KeyValueStore.self) { MemoryStore() }
            register(KeyValueStore.self, serviceId: "cache") { MemoryStore() }
            lazy { SearchIndex() }
            eager { CrashReporter() }
        }

        static func onShutdown() {
            Registry.resolve(KeyValueStore.self).flush()
        }
    }

    enum FeedModule: RegistryModule {
        static func imports() -> [any RegistryModule.Type] {
            [StorageModule.self]
        }

        static func onStartup() {
            register { FeedLoader() }
            register { FeedArchive() }
            register { FeedDraft() }
        }
    }

    final class FeedScreen {
        @Inject var loader: FeedLoader                      // resolved when the screen is created
        @Inject("cache") var cache: KeyValueStore           // the registration with service id "cache"
        @Inject var index: SearchIndex                      // a .lazy service: resolved on first read
        @Inject(scope: .unique) var draft: FeedDraft        // a new FeedDraft for this screen
        @OptionalInject var analytics: AnalyticsReporter?   // nil: nothing is registered
        @LazyInject var archive: FeedArchive                // resolved on first read
    }

    final class SyncEngine: PostConstruct {
        @Inject var hub: EventHub

        func postConstruct() {
            hub.subscribe(self)
        }
    }

    enum SyncModule: RegistryModule {
        static func onStartup() {
            register { EventHub() }
            eager { SyncEngine() }
        }
    }

    // The services the article names without showing them.

    protocol KeyValueStore: AnyObject {
        func flush()
    }

    final class MemoryStore: KeyValueStore {
        init() { FrontJournal.note("MemoryStore.init") }
        func flush() { FrontJournal.note("MemoryStore.flush") }
    }

    final class SearchIndex {
        init() { FrontJournal.note("SearchIndex.init") }
    }

    final class CrashReporter {
        init() { FrontJournal.note("CrashReporter.init") }
    }

    final class FeedLoader {
        @Inject var store: KeyValueStore
        init() { FrontJournal.note("FeedLoader.init") }
    }

    final class FeedArchive {
        init() { FrontJournal.note("FeedArchive.init") }
    }

    final class FeedDraft {}

    final class AnalyticsReporter {}

    final class EventHub {
        private(set) var subscribers: [AnyObject] = []
        func subscribe(_ subscriber: AnyObject) { subscribers.append(subscriber) }
    }

    struct Settings {}
}

// swift-format-ignore-file
// (The samples here mirror the articles' text line for line: see ArticleSamplesTests.)
import Keystone
import Testing

// The samples of TestingWithKeystone.md, verbatim, each followed by the facts the article states about
// it. The samples that are themselves tests (`@Test func ...`) are members of the suite, as written.
// The article's types are nested in the suite.

@Suite("Article: Testing with Keystone", .hangLimit)
struct TestingWithKeystoneArticleTests {
    @Test func theAppGraphResolves() {
        #expect(AppContainer.make().verify() == [])
    }

    @Test("verify() reports the missing store and the tolerated cycle, each once, with their paths")
    func verifyFindsEveryProblem() {
        let container = Container()
        container.register(Feed.self) { r in Feed(store: try r.resolveThrows(Store.self)) }
        container.register(Session.self) { r in Session(profile: r.resolve(Profile.self)) }
        container.register(Profile.self) { r in Profile(session: r.resolve(Session.self)) }

        let problems = container.verify()
        // [.notRegistered(Store, needed by Feed), .circularDependency(Profile -> Session -> Profile)]

        #expect(
            problems == [
                .notRegistered(key: key(Store.self), path: [key(Feed.self)], candidates: []),
                .circularDependency(path: [key(Profile.self), key(Session.self), key(Profile.self)]),
            ]
        )
    }

    @Test("verify() leaves the container's instances and counts alone, but factories run")
    func verifyUsesASandbox() {
        let made = Counter()
        let container = Container()
        container.countsResolutions = true
        container.register(Store.self) { _ in
            made.increment()
            return DiskStore()
        }.inObjectScope(.container)
        let store = container.resolve(Store.self)
        #expect(made.count == 1)

        #expect(container.verify() == [])
        #expect(made.count == 2, "the factory ran again, for a scratch copy")
        #expect(container.resolve(Store.self) === store, "the held instance was neither read nor replaced")
        #expect(container.statusReport().contains("resolved 2 times"), "verify() did not count its resolve")
    }

    @Test("Registrations with runtime arguments are verified with sample arguments, skipped without")
    func sampleArguments() {
        let container = Container()
        container.register(Feed.self) { (r, name: String) in Feed(store: try r.resolveThrows(Store.self, name: name)) }
        container.register(Store.self, name: "main") { _ in DiskStore() }

        var samples = SampleArguments()
        samples.add(Feed.self, arguments: "main")
        #expect(container.verify(samples: samples) == [])

        var wrongSamples = SampleArguments()
        wrongSamples.add(Feed.self, arguments: "archive")
        let problems = container.verify(samples: wrongSamples)
        #expect(problems.count == 1)
        #expect(problems.first?.key == ServiceKey(serviceType: Store.self, name: "archive"))
    }

    @Test func aFeedWithoutAStoreFailsWithThePath() {
        let container = Container()
        container.register(Feed.self) { r in Feed(store: try r.resolveThrows(Store.self)) }

        let missingStore = DIError.notRegistered(
            key: ServiceKey(serviceType: Store.self),
            path: [ServiceKey(serviceType: Feed.self)],
            candidates: []
        )
        #expect(throws: missingStore) {
            try container.resolveThrows(Feed.self)
        }
    }

    @Test("DIError equality: candidates as a set, factory errors by type and description")
    func errorEquality() {
        let store = key(Store.self)
        let named = ServiceKey(serviceType: Store.self, name: "a")
        let other = ServiceKey(serviceType: Store.self, name: "b")
        #expect(
            DIError.notRegistered(key: store, path: [], candidates: [named, other])
                == .notRegistered(key: store, path: [], candidates: [other, named])
        )
        #expect(
            DIError.notRegistered(key: store, path: [], candidates: [])
                != .notRegistered(key: store, path: [key(Feed.self)], candidates: [])
        )
        struct Offline: Error, CustomStringConvertible {
            var reason: String
            var description: String { "offline: \(reason)" }
        }
        #expect(
            DIError.factoryFailed(key: store, path: [], underlying: Offline(reason: "x"))
                == .factoryFailed(key: store, path: [], underlying: Offline(reason: "x"))
        )
        #expect(
            DIError.factoryFailed(key: store, path: [], underlying: Offline(reason: "x"))
                != .factoryFailed(key: store, path: [], underlying: Offline(reason: "y"))
        )
    }

    @Test("A stub registered in a child container replaces the app's store for the app's factories")
    func childContainerStub() throws {
        let testContainer = Container(parent: AppContainer.make())
        testContainer.register(Store.self) { _ in StubStore(items: ["cached"]) }

        let feed = try testContainer.resolveThrows(Feed.self)
        #expect(feed.items == ["cached"])
    }

    @Test func theScreenShowsTheStubbedItems() {
        Container.withCurrent(Container()) {
            DependencyRegistry.register { () -> Store in StubStore(items: ["first", "second"]) }
            let screen = FeedScreen()
            #expect(screen.items == ["first", "second"])
        }
    }

    @Test("withCurrent: child tasks inherit the binding, detached tasks do not, wrappers remember it")
    func withCurrentBinding() async {
        let container = Container()
        let bound = ObjectIdentifier(container)
        let late = await Container.withCurrent(container) {
            DependencyRegistry.register { () -> Store in StubStore(items: ["late"]) }
            let fromTask = await Task { ObjectIdentifier(Container.current) }.value
            let fromChild = await withTaskGroup(of: ObjectIdentifier.self) { group in
                group.addTask { ObjectIdentifier(Container.current) }
                return await group.next()!
            }
            let fromDetached = await Task.detached { ObjectIdentifier(Container.current) }.value
            #expect(fromTask == bound)
            #expect(fromChild == bound)
            #expect(fromDetached != bound)
            return LateReader()
        }
        #expect(ObjectIdentifier(Container.current) != bound)
        #expect(late.store.items == ["late"], "the wrapper resolves from the container current at its creation")
    }

    @Test("The dependency graph of the app container, as data and as Mermaid and DOT text")
    func dependencyGraph() {
        let graph = AppContainer.make().dependencyGraph()
        print(graph.mermaid)

        #expect(
            graph.mermaid == """
                graph TD
                    n0["Feed<br/>graph"]
                    n1["Store<br/>container"]
                    n0 --> n1
                """
        )
        #expect(graph.edges == [DependencyGraph.Edge(from: key(Feed.self), to: key(Store.self))])
        #expect(graph.dot.hasPrefix("digraph Dependencies {"))
        #expect(graph.dot.contains("n0 -> n1;"))

        let missing = Container()
        missing.register(Feed.self) { r in Feed(store: try r.resolveThrows(Store.self)) }
        let withMissing = missing.dependencyGraph()
        #expect(withMissing.mermaid.contains(#"n1["Store<br/>missing"]:::missing"#))
        #expect(withMissing.dot.contains(#"n1 [label="Store\nmissing", style=dashed];"#))
    }
}

// MARK: - The article's types

extension TestingWithKeystoneArticleTests {
    enum AppContainer {
        static func make() -> Container {
            let container = Container()
            container.register(Store.self) { _ in DiskStore() }.inObjectScope(.container)
            container.register(Feed.self) { r in Feed(store: try r.resolveThrows(Store.self)) }
            return container
        }
    }

    protocol Store: AnyObject {
        var items: [String] { get }
    }

    final class DiskStore: Store {
        let items: [String] = []
    }

    final class StubStore: Store {
        let items: [String]
        init(items: [String]) { self.items = items }
    }

    final class Feed {
        let store: Store
        init(store: Store) { self.store = store }
        var items: [String] { store.items }
    }

    final class Session {
        let profile: Profile?
        init(profile: Profile?) { self.profile = profile }
    }

    final class Profile {
        let session: Session?
        init(session: Session?) { self.session = session }
    }

    final class FeedScreen {
        @Inject var store: Store
        var items: [String] { store.items }
    }

    final class LateReader {
        @LazyInject var store: Store
    }
}

private func key<T>(_ type: T.Type, name: String? = nil) -> ServiceKey {
    ServiceKey(serviceType: type, name: name)
}

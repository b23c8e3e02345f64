import Keystone
import Testing

private protocol Logger: AnyObject {}
private protocol Store: AnyObject {}
private protocol Session: AnyObject {}
private protocol Profile: AnyObject {}
private protocol Feed: AnyObject {}
private protocol Metrics: AnyObject {}

private final class ConsoleLogger: Logger {}
private final class DiskStore: Store {
    let logger: Logger
    let metrics: Metrics?
    init(logger: Logger, metrics: Metrics?) {
        self.logger = logger
        self.metrics = metrics
    }
}
private final class UserSession: Session {
    let profile: Profile?
    init(profile: Profile?) { self.profile = profile }
}
private final class UserProfile: Profile {
    let session: Session?
    init(session: Session?) { self.session = session }
}
private final class HomeFeed: Feed {
    let store: Store
    let logger: Logger
    init(store: Store, logger: Logger) {
        self.store = store
        self.logger = logger
    }
}

private func key<T>(_ type: T.Type, name: String? = nil) -> ServiceKey {
    ServiceKey(serviceType: type, name: name)
}

/// A graph with one missing dependency (Metrics, wanted by Store) and one cycle (Session <-> Profile),
/// both tolerated by their factories.
private func makeFlawedContainer(created: Counter) -> Container {
    let container = Container()
    container.register(Logger.self) { _ in
        created.increment()
        return ConsoleLogger()
    }.inObjectScope(.container)
    container.register(Store.self) { r in
        DiskStore(logger: try r.resolveThrows(Logger.self), metrics: r.resolve(Metrics.self))
    }.inObjectScope(.container)
    container.register(Feed.self) { r in
        HomeFeed(store: try r.resolveThrows(Store.self), logger: try r.resolveThrows(Logger.self))
    }
    container.register(Session.self) { r in UserSession(profile: r.resolve(Profile.self)) }
    container.register(Profile.self) { r in UserProfile(session: r.resolve(Session.self)) }
    return container
}

@Suite("verify() and dependencyGraph()")
struct VerificationTests {
    @Test("verify() returns exactly the missing dependency and the cycle, with their paths")
    func verifyFindsBothProblems() {
        let created = Counter()
        let container = makeFlawedContainer(created: created)
        let logger = container.resolve(Logger.self)
        #expect(created.count == 1)

        let problems = container.verify()

        #expect(problems.count == 2)
        #expect(
            problems.contains(.circularDependency(path: [key(Profile.self), key(Session.self), key(Profile.self)]))
        )
        #expect(
            problems.contains(
                .notRegistered(key: key(Metrics.self), path: [key(Feed.self), key(Store.self)], candidates: [])
            )
        )

        // The container's cached instances were neither read nor replaced, and nothing new was cached.
        #expect(created.count == 2, "verify made its own logger in the sandbox")
        #expect(container.resolve(Logger.self) === logger)
        let storeLine = container.statusReport().split(separator: "\n").first { $0.hasPrefix("• Store ") }
        #expect(storeLine?.contains("instance held") == false, "verify's Store stayed in the sandbox")
        #expect(storeLine?.contains("resolved 0 times") == true)
    }

    @Test("verify() of a sound graph is empty, and resolution counts are left alone")
    func soundGraph() {
        let container = Container()
        container.register(Logger.self) { _ in ConsoleLogger() }.inObjectScope(.container)
        container.register(Store.self) { r in DiskStore(logger: try r.resolveThrows(Logger.self), metrics: nil) }
        #expect(container.verify() == [])
        #expect(container.statusReport().contains("resolved 0 times"))
        #expect(!container.statusReport().contains("instance held"))
    }

    @Test("Registrations with runtime arguments are verified with sample arguments, skipped without")
    func sampleArguments() {
        let container = Container()
        container.register(Feed.self) { (r, name: String) in
            HomeFeed(store: try r.resolveThrows(Store.self, name: name), logger: ConsoleLogger())
        }
        container.register(Session.self) { (_, _: Int, _: Bool) in UserSession(profile: nil) }
        #expect(container.verify() == [])

        var samples = SampleArguments()
        samples.add(Feed.self, arguments: "main")
        samples.add(Session.self, arguments: 1, true)
        let problems = container.verify(samples: samples)
        #expect(
            problems == [
                .notRegistered(
                    key: key(Store.self, name: "main"),
                    path: [ServiceKey(serviceType: Feed.self, argumentsType: String.self)],
                    candidates: []
                )
            ]
        )
    }

    @Test("The dependency graph of a known container renders as the expected Mermaid and DOT text")
    func graphRendering() {
        let created = Counter()
        let container = makeFlawedContainer(created: created)
        let graph = container.dependencyGraph()
        #expect(
            graph.mermaid == """
                graph TD
                    n0["Feed<br/>graph"]
                    n1["Logger<br/>container"]
                    n2["Metrics<br/>missing"]:::missing
                    n3["Profile<br/>graph"]
                    n4["Session<br/>graph"]
                    n5["Store<br/>container"]
                    n0 --> n5
                    n5 --> n1
                    n5 --> n2
                    n0 --> n1
                    n3 --> n4
                    n4 --> n3
                    classDef missing stroke-dasharray: 5 5
                """
        )
        #expect(
            graph.dot == """
                digraph Dependencies {
                    node [shape=box];
                    n0 [label="Feed\\ngraph"];
                    n1 [label="Logger\\ncontainer"];
                    n2 [label="Metrics\\nmissing", style=dashed];
                    n3 [label="Profile\\ngraph"];
                    n4 [label="Session\\ngraph"];
                    n5 [label="Store\\ncontainer"];
                    n0 -> n5;
                    n5 -> n1;
                    n5 -> n2;
                    n0 -> n1;
                    n3 -> n4;
                    n4 -> n3;
                }
                """
        )
        #expect(created.count == 1, "the graph was explored in a sandbox too")
    }

    @Test("Names, forwarding and Lazy appear in the graph")
    func namesAndLazy() {
        let container = Container()
        container.register(Logger.self, name: "console") { _ in ConsoleLogger() }
            .implements(Metrics.self, name: "no")
        container.register(Store.self) { r in
            _ = r.resolve(Lazy<Logger>.self, name: "console")
            return DiskStore(logger: ConsoleLogger(), metrics: nil)
        }
        let graph = container.dependencyGraph()
        #expect(graph.edges.contains(.init(from: key(Store.self), to: key(Logger.self, name: "console"))))
        #expect(graph.mermaid.contains(#"Logger named #quot;console#quot;<br/>graph"#))
    }
}

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
        container.countsResolutions = true
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
        #expect(created.count == 2, "verify made its own logger from a scratch copy")
        #expect(container.resolve(Logger.self) === logger)
        let storeLine = container.statusReport().split(separator: "\n").first { $0.hasPrefix("• Store ") }
        #expect(storeLine?.contains("instance held") == false, "verify's Store went with the scratch copy")
        #expect(storeLine?.contains("resolved 0 times") == true)
    }

    @Test("verify() of a sound graph is empty, and resolution counts are left alone")
    func soundGraph() {
        let container = Container()
        container.countsResolutions = true
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
        #expect(created.count == 1, "the graph was explored on scratch copies too")
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

/// Counting and inspection observe resolves without being part of the resolve path: counting only while
/// asked for, inspection on scratch copies of the registrations.
@Suite("Counting and inspection as clients of the engine")
struct ObservationTests {
    @Test("Resolves are not counted unless asked for, and the report says so")
    func countingIsOffByDefault() {
        let container = Container()
        container.register(Logger.self) { _ in ConsoleLogger() }.inObjectScope(.container)
        _ = container.resolve(Logger.self)
        _ = container.resolve(Logger.self)

        #expect(!container.countsResolutions)
        let report = container.statusReport()
        #expect(report.hasPrefix("Container with 1 registration, resolves not counted (see countsResolutions):"))
        #expect(!report.contains("resolved"))
        #expect(report.contains("instance held"))
    }

    @Test("Counting covers every path a resolve takes, in the whole hierarchy, while it is on")
    func countingCoversEveryPath() throws {
        let parent = Container()
        parent.register(Logger.self) { _ in ConsoleLogger() }.inObjectScope(.container).implements(AnyObject.self)
        let child = Container(parent: parent)
        child.countsResolutions = true
        #expect(parent.countsResolutions, "the setting is the hierarchy's")
        let view = child.synchronize()

        let first = parent.resolve(Logger.self)  // created
        #expect(child.resolve(Logger.self) === first)  // cached, from a child
        #expect(view.resolve(Logger.self) === first)  // through the view
        #expect(try child.resolveThrows(Logger.self) === first)
        #expect(child.resolve(AnyObject.self) === first)  // forwarded
        #expect(child.resolve(Lazy<Logger>.self)?.instance === first)  // through a wrapper
        #expect(parent.statusReport().contains("• Logger [container] registered "))
        #expect(parent.statusReport().contains(", resolved 6 times, shared, instance held"))

        parent.countsResolutions = false
        _ = child.resolve(Logger.self)
        #expect(!parent.statusReport().contains("resolved"))
        child.countsResolutions = true
        #expect(parent.statusReport().contains(", resolved 6 times, shared, instance held"), "kept while off")
    }

    @Test("verify() resolves from scratch copies, also through a container a factory captured")
    func verifyThroughACapturedContainer() {
        let made = Counter()
        let container = Container()
        container.register(Logger.self) { _ in
            made.increment()
            return ConsoleLogger()
        }.inObjectScope(.container)
        // The factory ignores the resolver it is handed and uses the container itself.
        container.register(Store.self) { [unowned container] _ in
            DiskStore(logger: container.resolve(Logger.self)!, metrics: nil)
        }
        let logger = container.resolve(Logger.self)

        #expect(container.verify() == [])
        #expect(made.count == 2, "one scratch instance, shared by both roots")
        #expect(container.resolve(Logger.self) === logger, "the real instance was neither read nor replaced")
        let graph = container.dependencyGraph()
        #expect(graph.edges.contains(DependencyGraph.Edge(from: key(Store.self), to: key(Logger.self))))
        #expect(made.count == 3)
        #expect(container.resolve(Logger.self) === logger)
    }

    @Test("verify() leaves weak and custom-scope instances alone")
    func verifyLeavesOtherScopesAlone() throws {
        let container = Container()
        container.register(Logger.self) { _ in ConsoleLogger() }.inObjectScope(.weak)
        container.register(Store.self) { r in DiskStore(logger: r.resolve(Logger.self)!, metrics: nil) }
            .inObjectScope(.weak)
        let session = ObjectScope(storageFactory: PermanentStorage.init, description: "session")
        let sessionsMade = Counter()
        container.register(Session.self) { _ in
            sessionsMade.increment()
            return UserSession(profile: nil)
        }
        .inObjectScope(session)
        let store = try #require(container.resolve(Store.self))
        let logger = try #require(container.resolve(Logger.self))
        let user = try #require(container.resolve(Session.self))

        #expect(container.verify() == [])
        #expect(container.resolve(Store.self) === store)
        #expect(container.resolve(Logger.self) === logger)
        #expect((store as? DiskStore)?.logger === logger)
        #expect(container.resolve(Session.self) === user, "the custom scope's instance was neither read nor replaced")
        #expect(sessionsMade.count == 2, "verify made its own, in a scratch storage")
    }

    @Test("A registration a factory makes during verify() goes with the scratch copies")
    func registrationsDuringVerifyAreDropped() {
        let container = Container()
        container.register(Store.self) { r in
            // A factory that registers (unusual, but legal): during verify() it registers in the copy.
            (r as? Container)?.register(Metrics.self) { _ in fatalError("never resolved") }
            return DiskStore(logger: ConsoleLogger(), metrics: nil)
        }
        #expect(container.verify() == [])
        #expect(container.registeredCount() == 1)
        #expect(container.resolve(Store.self) != nil)
        #expect(container.registeredCount() == 2, "a real resolve registers for real")
    }
}

import Foundation
import Keystone
import Testing

// Attacks on two `resolveAll` fixes: a `.graph` element resolved at the top of `resolveAll` stays in the
// call's graph (so later elements and nested resolves share it), and `resolveAll` through the resolver of
// an async factory joins the asynchronous resolution in flight.

// MARK: - Fixtures

/// Expects `resolve` to fail with a cycle whose path has the registration names `names`; `resolve`
/// describes what it made instead.
private func expectCycle(
    _ names: [String?],
    sourceLocation: SourceLocation = #_sourceLocation,
    _ resolve: () async throws(DIError) -> String
) async {
    do {
        let made = try await resolve()
        Issue.record("expected a cycle, got \(made)", sourceLocation: sourceLocation)
    } catch {
        guard case .circularDependency(let path) = error else {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(path.map(\.name) == names, sourceLocation: sourceLocation)
    }
}

private protocol RAFPlugin: AnyObject {
    var name: String { get }
}

/// A plugin counted when made and when it ends, which may hold other plugins.
private final class RAFItem: RAFPlugin {
    let id: Int
    let name: String
    let ended: Ends
    var shared: RAFItem?
    var all: [any RAFPlugin] = []
    var onEnd: (() -> Void)?

    init(id: Int, name: String, ended: Ends) {
        self.id = id
        self.name = name
        self.ended = ended
    }

    deinit {
        onEnd?()
        ended.add(id)
    }
}

/// Makes counted plugins with fresh ids.
private final class RAFMint: @unchecked Sendable {
    // @unchecked: the counters lock themselves, and nothing else changes.
    let made = Counter()
    let ended = Ends()
    let names = EventLog()

    func make(_ name: String) -> RAFItem {
        names.record(name)
        return RAFItem(id: made.next(), name: name, ended: ended)
    }

    /// How many were made under `name`.
    func count(_ name: String) -> Int {
        names.all.filter { $0 == name }.count
    }

    /// Every plugin made has ended, once.
    var allEndedOnce: Bool {
        made.count == ended.total && ended.twice.isEmpty
    }
}

/// A value in `.graph`: values are never shared.
private struct RAFValue {
    let serial: Int
    var seen: Int?
}

/// What an async factory saw, handed back across tasks.
private final class RAFReport: @unchecked Sendable {
    // @unchecked: written by one factory before the resolve that returns it completes, read after.
    var all: [any RAFPlugin] = []
    var fromAsync: (any RAFPlugin)?
    var fromSync: (any RAFPlugin)?
    var later: [any RAFPlugin] = []
    var error: DIError?
}

/// A resolver kept past the call that handed it.
private final class RAFKept: @unchecked Sendable {
    // @unchecked: set once inside the factory, read after its resolve returned.
    var resolver: (any Resolver)?
}

/// A storage that records the graphs it is used in.
private final class RAFGraphSpy: InstanceStorage, @unchecked Sendable {
    // @unchecked: used under the container's lock only.
    var instance: Any?
    var graphs: [GraphIdentifier] = []

    func instance(inGraph graph: GraphIdentifier) -> Any? {
        graphs.append(graph)
        return nil
    }

    func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
        graphs.append(graph)
    }
}

private func items(_ all: [any RAFPlugin]) -> [RAFItem] {
    all.compactMap { $0 as? RAFItem }
}

/// Registers `names` as plugins in that order: "g" is `.graph`, every other one resolves "g" and keeps it.
/// A holder of every plugin (`resolveAll`) and of the `.graph` plugin "g", resolved through `resolver`.
private func makeHolder(_ name: String, through resolver: any Resolver, mint: RAFMint) -> RAFItem {
    let holder = mint.make(name)
    holder.all = resolver.resolveAll(RAFPlugin.self)
    holder.shared = resolver.resolve(RAFPlugin.self, name: "g") as? RAFItem
    return holder
}

/// Registers the async `RAFReport`: "g" resolved asynchronously, then the holder registered under
/// `holderName`, whose plugins it reports.
private func registerReport(through holderName: String, in container: Container) {
    container.registerAsync(RAFReport.self) { r in
        let report = RAFReport()
        report.fromAsync = try await r.resolveAsync(RAFPlugin.self, name: "g")
        let holder = try await r.resolveAsync(RAFItem.self, name: holderName)
        report.fromSync = holder.shared
        report.all = holder.all
        return report
    }
}

private func registerSharing(_ names: [String], in container: Container, mint: RAFMint) {
    for name in names {
        if name == "g" {
            container.register(RAFPlugin.self, name: "g") { _ in mint.make("g") }.inObjectScope(.graph)
        } else {
            container.register(RAFPlugin.self, name: name) { r in
                let made = mint.make(name)
                made.shared = try r.resolveThrows(RAFPlugin.self, name: "g") as? RAFItem
                return made
            }
        }
    }
}

// MARK: - A `.graph` element at the top of `resolveAll`

@Suite("ResolveAllFixAttack graph elements", .tags(.engine), .hangLimit)
struct ResolveAllFixAttackGraphTests {
    @Test(arguments: [["g", "a", "b"], ["a", "g", "b"], ["a", "b", "g"]])
    func theGraphElementIsSharedWithEveryOtherElementInAnyOrder(order: [String]) throws {
        let mint = RAFMint()
        do {
            let container = Container()
            registerSharing(order, in: container, mint: mint)
            let all = items(try container.resolveAllThrows(RAFPlugin.self))
            #expect(all.map(\.name) == order)
            let graph = try #require(all.first { $0.name == "g" })
            for item in all where item.name != "g" {
                #expect(item.shared === graph, "\(item.name) shares the element g in order \(order)")
            }
            #expect(mint.count("g") == 1)
        }
        #expect(mint.allEndedOnce, "nothing is kept once the array is gone")
    }

    @Test func everyResolveAllIsANewGraphAndATopLevelResolveAfterItIsToo() throws {
        let mint = RAFMint()
        do {
            let container = Container()
            registerSharing(["g", "a"], in: container, mint: mint)
            let first = items(container.resolveAll(RAFPlugin.self))
            let second = items(container.resolveAll(RAFPlugin.self))
            #expect(first.count == 2 && second.count == 2)
            #expect(first[0] !== second[0], "a second resolveAll is a second graph")
            #expect(second[1].shared === second[0])
            let alone = try #require(container.resolve(RAFPlugin.self, name: "g") as? RAFItem)
            #expect(alone !== first[0] && alone !== second[0], "a top-level resolve does not reuse an element")
            let again = try #require(container.resolve(RAFPlugin.self, name: "g") as? RAFItem)
            #expect(again !== alone)
            #expect(mint.count("g") == 4)
        }
        #expect(mint.allEndedOnce)
    }

    @Test func topLevelGraphResolvesKeepNothing() throws {
        let mint = RAFMint()
        let container = Container()
        registerSharing(["g", "a"], in: container, mint: mint)
        weak var first: RAFItem?
        do {
            let made = try #require(container.resolve(RAFPlugin.self, name: "g") as? RAFItem)
            first = made
            #expect(mint.ended.total == 0)
        }
        #expect(first == nil, "the container keeps no top-level .graph instance")
        _ = container.resolveAll(RAFPlugin.self)
        #expect(mint.allEndedOnce, "nor the elements of a resolveAll once it returned")
        _ = container.synchronize().resolveAll(RAFPlugin.self)
        #expect(mint.allEndedOnce)
        #expect(mint.made.count == 5)
    }

    @Test func aGraphElementWithAnInitCompletedActionIsCompletedOnceAndShared() throws {
        let mint = RAFMint()
        let completions = Counter()
        do {
            let container = Container()
            container.register(RAFPlugin.self, name: "g") { _ in mint.make("g") }
                .inObjectScope(.graph)
                .initCompleted { r, plugin in
                    completions.increment()
                    (plugin as? RAFItem)?.shared = r.resolve(RAFPlugin.self, name: "h") as? RAFItem
                }
            container.register(RAFPlugin.self, name: "h") { _ in mint.make("h") }.inObjectScope(.graph)
            registerSharing(["a"], in: container, mint: mint)
            let all = items(container.resolveAll(RAFPlugin.self))
            #expect(all.map(\.name) == ["g", "h", "a"])
            #expect(all[0].shared === all[1], "g's action resolved the graph's h, which is the element")
            #expect(all[2].shared === all[0])
            #expect(completions.count == 1)
            #expect(mint.count("g") == 1 && mint.count("h") == 1)
        }
        #expect(mint.allEndedOnce)
    }

    @Test func valuesInTheGraphScopeAreNeverShared() throws {
        let serials = Counter()
        let container = Container()
        container.register(RAFValue.self, name: "a") { _ in RAFValue(serial: serials.next()) }.inObjectScope(.graph)
        container.register(RAFValue.self, name: "b") { r in
            RAFValue(serial: serials.next(), seen: try r.resolveThrows(RAFValue.self, name: "a").serial)
        }
        .inObjectScope(.graph)
        let all = try container.resolveAllThrows(RAFValue.self)
        #expect(all.count == 2)
        #expect(all[0].serial == 1)
        #expect(all[1].seen == 3, "b's resolve of a ran a's factory again")
        #expect(serials.count == 3)
    }

    @Test func aResolveAllNestedInAFactorySharesTheOuterGraphBothWays() throws {
        let mint = RAFMint()
        do {
            let container = Container()
            registerSharing(["g", "a"], in: container, mint: mint)
            container.register(RAFItem.self, name: "before") { r in
                let holder = mint.make("holder")
                holder.shared = r.resolve(RAFPlugin.self, name: "g") as? RAFItem
                holder.all = r.resolveAll(RAFPlugin.self)
                return holder
            }
            container.register(RAFItem.self, name: "after") { r in
                let holder = mint.make("holder")
                holder.all = r.resolveAll(RAFPlugin.self)
                holder.shared = r.resolve(RAFPlugin.self, name: "g") as? RAFItem
                return holder
            }
            for name in ["before", "after"] {
                let holder = try #require(container.resolve(RAFItem.self, name: name))
                let all = items(holder.all)
                #expect(all.count == 2)
                #expect(all.first === holder.shared, "\(name): the element is the factory's g")
                #expect(all.last?.shared === holder.shared)
            }
            #expect(mint.count("g") == 2)
        }
        #expect(mint.allEndedOnce)
    }

    @Test func aDeinitializerThatResolvesAllWhenTheGraphCloses() throws {
        let mint = RAFMint()
        let seen = EventLog()
        do {
            let container = Container()
            registerSharing(["g", "a"], in: container, mint: mint)
            container.register(RAFItem.self) { r in
                let temporary = mint.make("temporary")
                temporary.onEnd = {
                    let all = items(container.resolveAll(RAFPlugin.self))
                    seen.record("\(all.map(\.name)) shared \(all.count == 2 && all[1].shared === all[0])")
                }
                let holder = mint.make("holder")
                holder.all = r.resolveAll(RAFPlugin.self)
                _ = temporary
                return holder
            }
            .inObjectScope(.graph)
            let holder = try #require(container.resolve(RAFItem.self))
            #expect(holder.all.count == 2)
            #expect(items(holder.all)[1].shared === holder.all[0])
        }
        #expect(seen.all == [#"["g", "a"] shared true"#])
        #expect(mint.allEndedOnce)
    }

    @Test func aLazyAndAProviderOfAnElementFindTheElementOfTheirGraph() throws {
        let mint = RAFMint()
        let container = Container()
        container.register(RAFPlugin.self, name: "g") { _ in mint.make("g") }.inObjectScope(.graph)
        var lazy: Lazy<RAFPlugin>?
        var provider: Provider<RAFPlugin>?
        container.register(RAFPlugin.self, name: "deferred") { r in
            lazy = r.resolve(Lazy<RAFPlugin>.self, name: "g")
            provider = r.resolve(Provider<RAFPlugin>.self, name: "g")
            let made = mint.make("deferred")
            // During the call, the provider resolves in the call's graph.
            made.shared = provider?.instance as? RAFItem
            return made
        }
        let all = container.resolveAll(RAFPlugin.self)
        #expect(all.map(\.name) == ["g", "deferred"])
        #expect((all[1] as? RAFItem)?.shared === all[0], "the provider found the element during the call")
        let lazyInstance = try #require(lazy).instance
        #expect(lazyInstance === all[0], "the lazy's graph is the call's, and g is in it")
        #expect(mint.count("g") == 1)
        // Once the call has ended, each access is a resolve in a new graph (documented).
        let provided = try #require(provider).instance
        #expect(provided !== all[0])
        #expect(mint.count("g") == 2)
    }

    @Test func aGraphIdentifierSeenDuringResolveAllRestoresTheElement() throws {
        let mint = RAFMint()
        let spy = RAFGraphSpy()
        let container = Container()
        container.register(RAFPlugin.self, name: "g") { _ in mint.make("g") }.inObjectScope(.graph)
        container.register(RAFPlugin.self, name: "custom") { _ in mint.make("custom") }
            .inObjectScope(ObjectScope(storageFactory: { spy }, description: "spy"))
        let all = container.resolveAll(RAFPlugin.self)
        #expect(all.map(\.name) == ["g", "custom"])
        let graph = try #require(spy.graphs.first)
        #expect(Set(spy.graphs).count == 1)
        let restored = container.withObjectGraph(graph) { $0.resolve(RAFPlugin.self, name: "g") }
        #expect(restored === all[0], "the element g belongs to the graph the custom scope saw")
        #expect(mint.count("g") == 1)
    }

    @Test func aForwardedGraphElementIsSharedWithTheDirectResolve() throws {
        let mint = RAFMint()
        let container = Container()
        container.register(RAFItem.self) { _ in mint.make("g") }
            .inObjectScope(.graph)
            .implements(RAFPlugin.self, name: "g")
        registerSharing(["a"], in: container, mint: mint)
        container.register(RAFPlugin.self, name: "direct") { r in
            let made = mint.make("direct")
            made.shared = r.resolve(RAFItem.self)
            return made
        }
        let all = items(container.resolveAll(RAFPlugin.self))
        #expect(all.map(\.name) == ["g", "a", "direct"])
        #expect(all[1].shared === all[0])
        #expect(all[2].shared === all[0])
        #expect(mint.count("g") == 1)
    }

    @Test func aChildsResolveAllSharesTheParentsGraphElement() throws {
        let mint = RAFMint()
        let parent = Container()
        registerSharing(["g"], in: parent, mint: mint)
        let child = Container(parent: parent)
        registerSharing(["a"], in: child, mint: mint)
        let all = items(child.resolveAll(RAFPlugin.self))
        #expect(all.map(\.name) == ["g", "a"])
        #expect(all[1].shared === all[0])
    }
}

// MARK: - `resolveAll` inside asynchronous resolutions

@Suite("ResolveAllFixAttack async factories", .tags(.engine, .concurrency), .hangLimit)
struct ResolveAllFixAttackAsyncTests {
    @Test(arguments: [true, false])
    func elementsShareTheFactorysAsyncAndSyncResolves(resolveAllFirst: Bool) async throws {
        let mint = RAFMint()
        let container = Container()
        registerSharing(["g", "a"], in: container, mint: mint)
        container.registerAsync(RAFReport.self) { r in
            let report = RAFReport()
            if resolveAllFirst {
                report.all = r.resolveAll(RAFPlugin.self)
            }
            report.fromAsync = try await r.resolveAsync(RAFPlugin.self, name: "g")
            report.fromSync = r.resolve(RAFPlugin.self, name: "g")
            if !resolveAllFirst {
                report.all = try r.resolveAllThrows(RAFPlugin.self)
            }
            return report
        }
        let report = try await container.resolveAsync(RAFReport.self)
        let all = items(report.all)
        #expect(all.map(\.name) == ["g", "a"])
        #expect(report.fromAsync === all[0])
        #expect(report.fromSync === all[0])
        #expect(all[1].shared === all[0])
        #expect(mint.count("g") == 1)
        let second = try await container.resolveAsync(RAFReport.self)
        #expect(second.fromAsync !== report.fromAsync, "another resolveAsync is another graph")
    }

    @Test func aSyncFactoryRunInsideAnAsyncResolutionJoinsItToo() async throws {
        let mint = RAFMint()
        let container = Container()
        registerSharing(["g", "a"], in: container, mint: mint)
        container.register(RAFItem.self, name: "sync") { r in makeHolder("holder", through: r, mint: mint) }
        registerReport(through: "sync", in: container)
        let report = try await container.resolveAsync(RAFReport.self)
        #expect(report.all.first === report.fromAsync)
        #expect(report.fromSync === report.fromAsync)
        #expect(mint.count("g") == 1)
    }

    @Test func aCycleThroughResolveAllFailsTheAsyncResolutionWithItsPath() async throws {
        let container = Container()
        container.register(RAFPlugin.self, name: "fine") { _ in RAFMint().make("fine") }
        container.register(RAFPlugin.self, name: "loop") { r in
            _ = r.resolve(RAFPlugin.self, name: "loop")
            return RAFMint().make("loop")
        }
        let reached = Counter()
        container.registerAsync(RAFReport.self, name: "outer") { r in
            let report = RAFReport()
            report.all = r.resolveAll(RAFPlugin.self)
            reached.increment()
            return report
        }
        // A cycle's path starts where it closes (`DIError.circularDependency`), as for a sync call.
        await expectCycle(["loop", "loop"]) { () async throws(DIError) in
            try await container.resolveAsync(RAFReport.self, name: "outer").all.map(\.name).description
        }
        #expect(reached.count <= 1)
        // The container is still usable.
        #expect(container.resolve(RAFPlugin.self, name: "fine")?.name == "fine")
    }

    @Test(arguments: [true, false])
    func aCycleFailsTheAsyncResolutionAlikeThroughResolveAllAndThroughResolve(throughAll: Bool) async throws {
        let container = Container()
        container.register(RAFPlugin.self, name: "loop") { r in
            _ = r.resolve(RAFPlugin.self, name: "loop")
            return RAFMint().make("loop")
        }
        container.registerAsync(RAFReport.self) { r in
            let report = RAFReport()
            if throughAll {
                report.all = r.resolveAll(RAFPlugin.self)
            } else {
                report.all = [r.resolve(RAFPlugin.self, name: "loop")].compactMap { $0 }
            }
            report.fromAsync = r.resolve(RAFPlugin.self, name: "loop")
            return report
        }
        await expectCycle(["loop", "loop"]) { () async throws(DIError) in
            try await container.resolveAsync(RAFReport.self).all.map(\.name).description
        }
    }

    @Test func anAsyncPluginThatResolvesAllOfItsOwnTypeIsACycle() async throws {
        let container = Container()
        container.register(RAFPlugin.self, name: "sync") { _ in RAFMint().make("sync") }
        container.registerAsync(RAFPlugin.self, name: "async") { r in
            let made = RAFMint().make("async")
            made.all = r.resolveAll(RAFPlugin.self)
            return made
        }
        await expectCycle(["async", "async"]) { () async throws(DIError) in
            let made = try await container.resolveAsync(RAFPlugin.self, name: "async")
            return ((made as? RAFItem)?.all.map(\.name) ?? []).description
        }
    }

    @Test func resolveAllThrowsInsideAnAsyncFactoryReportsThePathThroughIt() async throws {
        let container = Container()
        container.register(RAFPlugin.self, name: "fine") { _ in RAFMint().make("fine") }
        container.register(RAFPlugin.self, name: "failing") { _ in throw CancellationError() }
        container.registerAsync(RAFReport.self, name: "outer") { r in
            let report = RAFReport()
            do throws(DIError) {
                report.all = try r.resolveAllThrows(RAFPlugin.self)
            } catch {
                report.error = error
            }
            report.later = r.resolveAll(RAFPlugin.self)
            return report
        }
        let report = try await container.resolveAsync(RAFReport.self, name: "outer")
        let error = try #require(report.error)
        guard case .factoryFailed(let key, let path, _) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(key.name == "failing")
        #expect(path.first?.name == "outer", "the path begins at the async factory: \(path.map(\.name))")
        #expect(report.all.isEmpty)
        #expect(report.later.map(\.name) == ["fine"], "a failure is no cycle: the resolution goes on")
    }

    @Test func aResolverKeptPastItsCallResolvesAllAsACallOfItsOwn() async throws {
        let mint = RAFMint()
        let container = Container()
        registerSharing(["g", "a"], in: container, mint: mint)
        let kept = RAFKept()
        container.registerAsync(RAFReport.self) { r in
            kept.resolver = r
            let report = RAFReport()
            report.all = r.resolveAll(RAFPlugin.self)
            return report
        }
        let report = try await container.resolveAsync(RAFReport.self)
        let resolver = try #require(kept.resolver)
        let first = items(resolver.resolveAll(RAFPlugin.self))
        let second = items(try resolver.resolveAllThrows(RAFPlugin.self))
        #expect(first.map(\.name) == ["g", "a"])
        #expect(first[1].shared === first[0])
        #expect(second[1].shared === second[0])
        #expect(first[0] !== second[0], "each is a call, and a graph, of its own")
        #expect(first[0] !== report.all.first, "not the ended resolution's graph")
        let fromTask = await Task.detached { kept.resolver?.resolveAll(RAFPlugin.self).map(\.name) ?? [] }.value
        #expect(fromTask == ["g", "a"])
        #expect(mint.count("g") == 4)
    }

    @Test func manyAsyncResolutionsResolveAllAtOnce() async throws {
        let container = Container()
        let mint = RAFMint()
        registerSharing(["g", "a", "b"], in: container, mint: mint)
        for index in 0..<8 {
            container.registerAsync(RAFReport.self, name: "r\(index)") { r in
                let report = RAFReport()
                report.fromAsync = try await r.resolveAsync(RAFPlugin.self, name: "g")
                await Task.yield()
                report.all = r.resolveAll(RAFPlugin.self)
                await Task.yield()
                report.fromSync = r.resolve(RAFPlugin.self, name: "g")
                return report
            }
        }
        let view = container.synchronize()
        let problems = EventLog()
        let graphs = EventLog()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    for _ in 0..<20 {
                        let report = try await view.resolveAsync(RAFReport.self, name: "r\(index)")
                        let all = items(report.all)
                        if all.map(\.name) != ["g", "a", "b"] || all[0] !== report.fromAsync
                            || all[0] !== report.fromSync || all[1].shared !== all[0] || all[2].shared !== all[0]
                        {
                            problems.record("r\(index): \(all.map(\.name))")
                        }
                        graphs.record("\(all.first?.id ?? -1)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(problems.all.isEmpty)
        #expect(Set(graphs.all).count == 160, "every resolution has its own g")
        #expect(mint.allEndedOnce)
    }

    @Test func cancellingTheTaskWhileTheFactoryResolvesAll() async throws {
        let container = Container()
        let mint = RAFMint()
        registerSharing(["g", "a"], in: container, mint: mint)
        let gate = Gate()
        let entered = Gate()
        container.registerAsync(RAFReport.self) { r in
            entered.open()
            await gate.wait()
            let report = RAFReport()
            report.all = r.resolveAll(RAFPlugin.self)
            report.fromAsync = try await r.resolveAsync(RAFPlugin.self, name: "g")
            return report
        }
        let view = container.synchronize()
        let task = Task { try await view.resolveAsync(RAFReport.self) }
        await entered.wait()
        task.cancel()
        gate.open()
        switch await task.result {
        case .success(let report):
            #expect(report.all.count == 2)
            #expect(report.all.first === report.fromAsync)
        case .failure(let error):
            #expect(error is CancellationError || error is DIError, "\(error)")
        }
        let after = try await container.resolveAsync(RAFReport.self)
        #expect(after.all.first === after.fromAsync)
    }

    @Test func anInitCompletedActionOfAnAsyncRegistrationJoinsTheResolution() async throws {
        let mint = RAFMint()
        let container = Container()
        registerSharing(["g", "a"], in: container, mint: mint)
        container.registerAsync(RAFReport.self) { r in
            let report = RAFReport()
            report.fromAsync = try await r.resolveAsync(RAFPlugin.self, name: "g")
            return report
        }
        .initCompleted { r, report in
            report.all = r.resolveAll(RAFPlugin.self)
            report.fromSync = r.resolve(RAFPlugin.self, name: "g")
        }
        let report = try await container.resolveAsync(RAFReport.self)
        #expect(report.all.count == 2)
        #expect(report.fromSync === report.fromAsync)
        #expect(report.all.first === report.fromAsync, "the action's resolveAll joins the factory's graph")
        #expect(mint.count("g") == 1)
    }

    @Test func aMainActorFactoryResolvedAsynchronouslyJoinsTheResolution() async throws {
        let mint = RAFMint()
        let container = Container()
        registerSharing(["g", "a"], in: container, mint: mint)
        container.register(
            RAFItem.self,
            name: "main",
            mainActorFactory: { r in makeHolder("main", through: r, mint: mint) }
        )
        registerReport(through: "main", in: container)
        let view = container.synchronize()
        let report = try await Task.detached { try await view.resolveAsync(RAFReport.self) }.value
        #expect(report.all.count == 2)
        #expect(report.fromSync === report.fromAsync)
        #expect(report.all.first === report.fromAsync)
        #expect(mint.count("g") == 1)
    }
}

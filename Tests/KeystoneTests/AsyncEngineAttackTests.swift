import Foundation
import Testing

@testable import Keystone

// Attacks on the async path after it was made to end in the synchronous engine (`adopt` → `complete`,
// one cycle rule, one depth limit counting the async path and the sync frames, every scope's rules in
// `Engine/Scopes.swift`): back-references from `initCompleted`, drops while a factory is suspended,
// cycles, depth and error paths, `.graph`/`.weak`/custom scopes, cancellation and concurrency.

// MARK: - Fixtures

private final class AKParent: @unchecked Sendable {
    // @unchecked: `child` is set once, by `initCompleted`, before the instance is handed out.
    let serial: Int
    var child: AKChild?
    init(serial: Int) { self.serial = serial }
}

private final class AKChild: Sendable {
    let parent: AKParent?
    init(parent: AKParent?) { self.parent = parent }
}

private final class AKLeaf: Sendable {
    let serial: Int
    init(serial: Int = 0) { self.serial = serial }
}

private final class AKNode: Sendable {
    let next: AKNode?
    init(next: AKNode?) { self.next = next }
}

private final class AKPair: Sendable {
    let first: AKLeaf
    let second: AKLeaf
    init(first: AKLeaf, second: AKLeaf) {
        self.first = first
        self.second = second
    }
}

private final class AKAlpha: Sendable {
    let beta: AKBeta?
    init(beta: AKBeta?) { self.beta = beta }
}

private final class AKBeta: Sendable {
    let alpha: AKAlpha?
    init(alpha: AKAlpha?) { self.alpha = alpha }
}

private final class AKSyncMid: Sendable {
    let alpha: AKAlpha?
    init(alpha: AKAlpha?) { self.alpha = alpha }
}

private struct AKBoom: Error, Equatable {}

private protocol AKForwarded: AnyObject {}
extension AKAlpha: AKForwarded {}

/// A non-Equatable argument.
private struct AKCountdown: Sendable {
    let n: Int
}

private func akKey<S>(_ type: S.Type, _ name: String? = nil) -> ServiceKey {
    ServiceKey(serviceType: type, name: name)
}

private func akKey<S, A>(_ type: S.Type, argument: A.Type) -> ServiceKey {
    ServiceKey(serviceType: type, argumentsType: argument, argumentCount: 1)
}

/// Waits (yielding) until `condition` holds or about five seconds pass.
private func akEventually(_ condition: () -> Bool) async {
    for _ in 0..<50_000 {
        if condition() { return }
        await Task.yield()
        if condition() { return }
        try? await Task.sleep(nanoseconds: 100_000)
    }
}

@Suite("Async engine attacks", .tags(.concurrency, .engine), .hangLimit)
struct AsyncEngineAttackTests {
    // MARK: - initCompleted back-references

    private func registerContainerBackReference(in container: Container, runs: Counter) {
        container.registerAsync(AKParent.self) { _ in
            await Task.yield()
            return AKParent(serial: runs.next())
        }
        .inObjectScope(.container)
        .initCompleted { r, parent in parent.child = try r.resolveThrows(AKChild.self) }
        container.register(AKChild.self) { r in AKChild(parent: try r.resolveThrows(AKParent.self)) }
    }

    @Test func asyncContainerBackReferenceFromInitCompletedIsTheInstanceItself() async throws {
        let container = Container()
        let runs = Counter()
        registerContainerBackReference(in: container, runs: runs)
        let parent = try await container.resolveAsync(AKParent.self)
        #expect(parent.child?.parent === parent)
        #expect(container.resolve(AKParent.self) === parent)
        #expect(runs.count == 1)
    }

    @Test func asyncContainerBackReferenceThroughTheViewAndConcurrently() async throws {
        let container = Container()
        let runs = Counter()
        registerContainerBackReference(in: container, runs: runs)
        let view = container.synchronize()
        let ids = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let parent = try await view.resolveAsync(AKParent.self)
                    #expect(parent.child?.parent === parent)
                    return ObjectIdentifier(parent)
                }
            }
            var ids: Set<ObjectIdentifier> = []
            for try await id in group { ids.insert(id) }
            return ids
        }
        #expect(ids.count == 1)
        #expect(runs.count == 1)
    }

    @Test func asyncContainerBackReferenceWhenResolvedDeepInsideAnotherAsyncFactory() async throws {
        let container = Container()
        let runs = Counter()
        registerContainerBackReference(in: container, runs: runs)
        container.registerAsync(AKChild.self, name: "outer") { r in
            AKChild(parent: try await r.resolveAsync(AKParent.self))
        }
        let outer = try await container.synchronize().resolveAsync(AKChild.self, name: "outer")
        let parent = try #require(outer.parent)
        #expect(parent.child?.parent === parent)
        #expect(container.resolve(AKParent.self) === parent)
    }

    @Test func asyncMultitonBackReferenceFromInitCompletedPerArguments() async throws {
        let container = Container()
        let runs = Counter()
        container.registerAsync(AKParent.self) { (_, id: Int) in
            _ = runs.next()
            await Task.yield()
            return AKParent(serial: id)
        }
        .inObjectScope(.multiton)
        .initCompleted { r, parent in parent.child = try r.resolveThrows(AKChild.self, argument: parent.serial) }
        container.register(AKChild.self) { (r, id: Int) in
            AKChild(parent: try r.resolveThrows(AKParent.self, argument: id))
        }
        let view = container.synchronize()
        let results = try await withThrowingTaskGroup(of: (Int, ObjectIdentifier).self) { group in
            for index in 0..<12 {
                let id = index % 2
                group.addTask {
                    let parent = try await view.resolveAsync(AKParent.self, argument: id)
                    #expect(parent.child?.parent === parent, "the back-reference is the instance itself")
                    #expect(parent.serial == id)
                    return (id, ObjectIdentifier(parent))
                }
            }
            var byId: [Int: Set<ObjectIdentifier>] = [:]
            for try await (id, object) in group { byId[id, default: []].insert(object) }
            return byId
        }
        #expect(results[0]?.count == 1)
        #expect(results[1]?.count == 1)
        #expect(results[0] != results[1])
        #expect(runs.count == 2)
        // Kept per arguments, also for a synchronous resolve.
        let zero = try #require(view.resolve(AKParent.self, argument: 0))
        #expect(results[0] == [ObjectIdentifier(zero)])
    }

    @Test func asyncGraphBackReferenceFromInitCompletedIsTheInstanceItself() async throws {
        let container = Container()
        let runs = Counter()
        container.registerAsync(AKParent.self) { _ in AKParent(serial: runs.next()) }
            .initCompleted { r, parent in parent.child = try r.resolveThrows(AKChild.self) }
        container.register(AKChild.self) { r in AKChild(parent: try r.resolveThrows(AKParent.self)) }
        let parent = try await container.resolveAsync(AKParent.self)
        #expect(parent.child?.parent === parent)
        #expect(runs.count == 1)
        let again = try await container.synchronize().resolveAsync(AKParent.self)
        #expect(again !== parent)
        #expect(again.child?.parent === again)
    }

    // MARK: - initCompleted that throws

    @Test func asyncContainerWhoseInitCompletedThrowsKeepsNothingAndReportsTheKey() async throws {
        let container = Container()
        let runs = Counter()
        let throwsNow = Counter()
        container.registerAsync(AKParent.self) { _ in AKParent(serial: runs.next()) }
            .inObjectScope(.container)
            .initCompleted { _, _ in
                if throwsNow.count == 0 { throw AKBoom() }
            }
        let error = await #expect(throws: DIError.self) { try await container.resolveAsync(AKParent.self) }
        guard case .factoryFailed(let key, let path, let underlying)? = error else {
            Issue.record("expected factoryFailed, got \(String(describing: error))")
            return
        }
        #expect(key == akKey(AKParent.self))
        #expect(path == [])
        #expect(underlying is AKBoom)
        #expect(container.resolve(AKParent.self) == nil, "an instance that did not complete is not kept")
        throwsNow.increment()
        let next = try await container.resolveAsync(AKParent.self)
        #expect(next.serial == 2)
        #expect(container.resolve(AKParent.self) === next)
    }

    @Test func asyncInitCompletedFailureDeepInsideReportsThePathOnce() async throws {
        // The same graph, once synchronous and once asynchronous: the same error.
        func build(async: Bool) -> Container {
            let container = Container()
            if async {
                container.registerAsync(AKParent.self) { _ in AKParent(serial: 1) }
                    .inObjectScope(.container)
                    .initCompleted { _, _ in throw AKBoom() }
                container.registerAsync(AKChild.self) { r in AKChild(parent: try await r.resolveAsync(AKParent.self)) }
                container.registerAsync(AKNode.self) { r in
                    _ = try await r.resolveAsync(AKChild.self)
                    return AKNode(next: nil)
                }
            } else {
                container.register(AKParent.self) { _ in AKParent(serial: 1) }
                    .inObjectScope(.container)
                    .initCompleted { _, _ in throw AKBoom() }
                container.register(AKChild.self) { r in AKChild(parent: try r.resolveThrows(AKParent.self)) }
                container.register(AKNode.self) { r in
                    _ = try r.resolveThrows(AKChild.self)
                    return AKNode(next: nil)
                }
            }
            return container
        }
        let sync = try #require(throws: DIError.self) { try build(async: false).resolveThrows(AKNode.self) }
        let plain = await #expect(throws: DIError.self) { try await build(async: true).resolveAsync(AKNode.self) }
        let viewed = await #expect(throws: DIError.self) {
            try await build(async: true).synchronize().resolveAsync(AKNode.self)
        }
        for error in [sync, plain, viewed] {
            guard case .factoryFailed(let key, let path, _)? = error else {
                Issue.record("expected factoryFailed, got \(String(describing: error))")
                continue
            }
            #expect(key == akKey(AKParent.self))
            #expect(path == [akKey(AKNode.self), akKey(AKChild.self)])
        }
    }

    @Test func asyncMultitonWhoseInitCompletedThrowsKeepsNothingForThoseArguments() async throws {
        let container = Container()
        let runs = Counter()
        container.registerAsync(AKParent.self) { (_, id: Int) in
            _ = runs.next()
            return AKParent(serial: id)
        }
        .inObjectScope(.multiton)
        .initCompleted { _, parent in
            if parent.serial == 13 { throw AKBoom() }
        }
        let kept = try await container.resolveAsync(AKParent.self, argument: 1)
        await #expect(throws: DIError.self) { try await container.resolveAsync(AKParent.self, argument: 13) }
        #expect(container.resolve(AKParent.self, argument: 13) == nil)
        #expect(container.resolve(AKParent.self, argument: 1) === kept, "the other arguments' instance stays")
        await #expect(throws: DIError.self) { try await container.resolveAsync(AKParent.self, argument: 13) }
        #expect(runs.count == 3)
    }

    // MARK: - Drops while an async factory is suspended

    /// Registers an async `.container` AKLeaf whose first creation waits on `release` (after opening
    /// `entered`); records disposals.
    private func registerGatedLeaf(
        in container: Container,
        entered: Gate,
        release: Gate,
        runs: Counter,
        disposed: SerialLog,
        disposedAsync: SerialLog? = nil
    ) {
        let entry = container.registerAsync(AKLeaf.self) { _ in
            let serial = runs.next()
            if serial == 1 {
                entered.open()
                await release.wait()
            }
            return AKLeaf(serial: serial)
        }
        .inObjectScope(.container)
        .onDispose { leaf in disposed.add(leaf.serial) }
        if let disposedAsync {
            entry.onDisposeAsync { leaf in disposedAsync.add(leaf.serial) }
        }
    }

    @Test func aResolveStartedAfterResetWhileTheOldCreationIsInFlightDoesNotGetTheDroppedInstance() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let runs = Counter()
        let disposed = SerialLog()
        registerGatedLeaf(in: container, entered: entered, release: release, runs: runs, disposed: disposed)
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(AKLeaf.self) }
        await entered.wait()
        container.resetObjectScope(.container)
        // Started after the scope was dropped: API §10, "later resolves create new instances".
        let second = Task { try await view.resolveAsync(AKLeaf.self) }
        await akEventually { runs.count >= 2 || container.waitersOnCreationsInFlight() >= 2 }
        release.open()
        let firstLeaf = try await first.value
        let secondLeaf = try await second.value
        #expect(firstLeaf.serial == 1)
        #expect(disposed.all == [1])
        #expect(
            !disposed.all.contains(secondLeaf.serial),
            "a resolve that started after resetObjectScope was handed an instance already disposed"
        )
        #expect(container.resolve(AKLeaf.self) != nil, "the new resolve's instance is kept")
    }

    @Test func aDroppedCreationStillCompletesItsBackReferenceForItsWaiters() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let runs = Counter()
        let disposed = SerialLog()
        container.registerAsync(AKParent.self) { _ in
            let serial = runs.next()
            if serial == 1 {
                entered.open()
                await release.wait()
            }
            return AKParent(serial: serial)
        }
        .inObjectScope(.container)
        .initCompleted { r, parent in parent.child = try r.resolveThrows(AKChild.self) }
        .onDispose { parent in disposed.add(parent.serial) }
        container.register(AKChild.self) { r in AKChild(parent: try r.resolveThrows(AKParent.self)) }
        let view = container.synchronize()
        let pending = Task { try await view.resolveAsync(AKParent.self) }
        await entered.wait()
        container.resetObjectScope(.container)
        release.open()
        // API §10: the waiter still gets its instance; the back-reference works as without the drop.
        let parent = try await pending.value
        #expect(parent.child?.parent === parent)
        #expect(disposed.all == [1])
        let next = try await view.resolveAsync(AKParent.self)
        #expect(next.serial == 2)
        #expect(next.child?.parent === next)
    }

    @Test func aDroppedMultitonCreationStillCompletesItsBackReferenceForItsWaiters() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let runs = Counter()
        container.registerAsync(AKParent.self) { (_, id: Int) in
            if runs.next() == 1 {
                entered.open()
                await release.wait()
            }
            return AKParent(serial: id)
        }
        .inObjectScope(.multiton)
        .initCompleted { r, parent in parent.child = try r.resolveThrows(AKChild.self, argument: parent.serial) }
        container.register(AKChild.self) { (r, id: Int) in
            AKChild(parent: try r.resolveThrows(AKParent.self, argument: id))
        }
        let view = container.synchronize()
        let pending = Task { try await view.resolveAsync(AKParent.self, argument: 9) }
        await entered.wait()
        try container.dispose()
        release.open()
        let parent = try await pending.value
        #expect(parent.child?.parent === parent)
    }

    @Test func aSynchronousContainerCreationDroppedByItsOwnFactoryStillCompletesItsBackReference() throws {
        // The same rule on the synchronous path (`complete` is shared): the factory drops its own scope.
        let container = Container()
        nonisolated(unsafe) let resetting = container
        let runs = Counter()
        container.register(AKParent.self) { _ in
            let serial = runs.next()
            if serial == 1 { resetting.resetObjectScope(.container) }
            return AKParent(serial: serial)
        }
        .inObjectScope(.container)
        .initCompleted { r, parent in parent.child = try r.resolveThrows(AKChild.self) }
        container.register(AKChild.self) { r in AKChild(parent: try r.resolveThrows(AKParent.self)) }
        let parent = try container.resolveThrows(AKParent.self)
        #expect(parent.child?.parent === parent)
    }

    @Test func anAsyncContainerServiceOfAParentResolvedFromParentAndChildConcurrentlyIsMadeOnce() async throws {
        let parent = Container()
        let child = Container(parent: parent)
        let runs = Counter()
        let release = Gate()
        parent.registerAsync(AKLeaf.self) { _ in
            let serial = runs.next()
            await release.wait()
            return AKLeaf(serial: serial)
        }
        .inObjectScope(.container)
        let parentView = parent.synchronize()
        let childView = child.synchronize()
        let tasks = (0..<6).map { index in
            Task { try await (index % 2 == 0 ? parentView : childView).resolveAsync(AKLeaf.self) }
        }
        await akEventually { parent.waitersOnCreationsInFlight() >= 6 || runs.count > 1 }
        release.open()
        var ids: Set<ObjectIdentifier> = []
        for task in tasks { ids.insert(ObjectIdentifier(try await task.value)) }
        #expect(ids.count == 1)
        #expect(runs.count == 1)
        #expect(parent.resolve(AKLeaf.self) != nil)
    }

    @Test func disposingAChildWhileItsParentsAsyncCreationIsInFlightLeavesTheParentsInstance() async throws {
        let parent = Container()
        let child = Container(parent: parent)
        let entered = Gate()
        let release = Gate()
        let runs = Counter()
        let disposed = SerialLog()
        registerGatedLeaf(in: parent, entered: entered, release: release, runs: runs, disposed: disposed)
        let childView = child.synchronize()
        let pending = Task { try await childView.resolveAsync(AKLeaf.self) }
        await entered.wait()
        try child.dispose()
        nonisolated(unsafe) let disposable = child
        try await disposable.disposeAsync()
        release.open()
        let leaf = try await pending.value
        #expect(disposed.all.isEmpty, "a child disposes only its own instances (API §10)")
        #expect(parent.resolve(AKLeaf.self) === leaf)
    }

    @Test func disposeThenResolveWhileTheOldCreationIsInFlightDoesNotGetTheDisposedInstance() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let runs = Counter()
        let disposed = SerialLog()
        registerGatedLeaf(in: container, entered: entered, release: release, runs: runs, disposed: disposed)
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(AKLeaf.self) }
        await entered.wait()
        try container.dispose()
        // API §10, dispose(): "later resolves create new instances".
        let second = Task { try await view.resolveAsync(AKLeaf.self) }
        await akEventually { runs.count >= 2 || container.waitersOnCreationsInFlight() >= 2 }
        release.open()
        _ = try await first.value
        let secondLeaf = try await second.value
        #expect(!disposed.all.contains(secondLeaf.serial), "a resolve made after dispose() got a disposed instance")
    }

    @Test func warmUpCompletesAnAsyncContainerBackReference() async throws {
        let container = Container()
        let runs = Counter()
        registerContainerBackReference(in: container, runs: runs)
        try await container.warmUp()
        let parent = try #require(container.resolve(AKParent.self))
        #expect(parent.child?.parent === parent)
        #expect(runs.count == 1)
    }

    @Test func removeAllWhileAnAsyncContainerCreationIsInFlight() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let runs = Counter()
        let disposed = SerialLog()
        registerGatedLeaf(in: container, entered: entered, release: release, runs: runs, disposed: disposed)
        let view = container.synchronize()
        let pending = Task { try await view.resolveAsync(AKLeaf.self) }
        await entered.wait()
        container.removeAll()
        release.open()
        let leaf = try await pending.value
        #expect(leaf.serial == 1, "the waiter still gets its instance")
        #expect(disposed.all == [1], "the instance of a removed registration is disposed, once")
        #expect(!container.hasAnyRegistration(of: AKLeaf.self))
        #expect(container.resolve(AKLeaf.self) == nil)
        await #expect(throws: DIError.self) { try await view.resolveAsync(AKLeaf.self) }
        // Registering again starts afresh.
        container.registerAsync(AKLeaf.self) { _ in AKLeaf(serial: 50) }.inObjectScope(.container)
        #expect(try await view.resolveAsync(AKLeaf.self).serial == 50)
        #expect(disposed.all == [1])
    }

    @Test func disposeTwiceWhileInFlightRunsTheSyncHandlerOnce() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let runs = Counter()
        let disposed = SerialLog()
        registerGatedLeaf(in: container, entered: entered, release: release, runs: runs, disposed: disposed)
        let view = container.synchronize()
        let pending = Task { try await view.resolveAsync(AKLeaf.self) }
        await entered.wait()
        try container.dispose()
        try container.dispose()
        release.open()
        #expect(try await pending.value.serial == 1)
        #expect(disposed.all == [1])
        #expect(container.resolve(AKLeaf.self) == nil)
        let next = try await view.resolveAsync(AKLeaf.self)
        #expect(next.serial == 2)
        #expect(container.resolve(AKLeaf.self) === next)
        try container.dispose()
        #expect(disposed.all == [1, 2])
    }

    @Test func twoDisposeAsyncCallsWhileInFlightRunEachHandlerOnce() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let runs = Counter()
        let disposed = SerialLog()
        let disposedAsync = SerialLog()
        registerGatedLeaf(
            in: container,
            entered: entered,
            release: release,
            runs: runs,
            disposed: disposed,
            disposedAsync: disposedAsync
        )
        let view = container.synchronize()
        let pending = Task { try await view.resolveAsync(AKLeaf.self) }
        await entered.wait()
        nonisolated(unsafe) let disposable = container
        let d1 = Task { try await disposable.disposeAsync() }
        let d2 = Task { try await disposable.disposeAsync() }
        await akEventually { container.waitersOnCreationsInFlight() >= 3 }
        release.open()
        try await d1.value
        try await d2.value
        #expect(try await pending.value.serial == 1)
        #expect(disposed.all == [1], "API §10: the handlers run once")
        #expect(disposedAsync.all == [1], "API §10: the handlers run once")
    }

    @Test func resetThenDisposeAsyncWhileInFlightRunsTheSyncHandlerOnce() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let runs = Counter()
        let disposed = SerialLog()
        let disposedAsync = SerialLog()
        registerGatedLeaf(
            in: container,
            entered: entered,
            release: release,
            runs: runs,
            disposed: disposed,
            disposedAsync: disposedAsync
        )
        let view = container.synchronize()
        let pending = Task { try await view.resolveAsync(AKLeaf.self) }
        await entered.wait()
        container.resetObjectScope(.container)
        nonisolated(unsafe) let disposable = container
        let disposing = Task { try await disposable.disposeAsync() }
        await akEventually { container.waitersOnCreationsInFlight() >= 2 }
        release.open()
        try await disposing.value
        #expect(try await pending.value.serial == 1)
        #expect(disposed.all == [1])
        #expect(disposedAsync.all.count <= 1)
    }

    @Test func disposeWhileAnAsyncMultitonCreationIsInFlight() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let disposed = SerialLog()
        let disposedAsync = SerialLog()
        let runs = Counter()
        container.registerAsync(AKLeaf.self) { (_, id: Int) in
            _ = runs.next()
            if id == 1 {
                entered.open()
                await release.wait()
            }
            return AKLeaf(serial: id)
        }
        .inObjectScope(.multiton)
        .onDispose { leaf in disposed.add(leaf.serial) }
        .onDisposeAsync { leaf in disposedAsync.add(leaf.serial) }
        let view = container.synchronize()
        let kept = try await view.resolveAsync(AKLeaf.self, argument: 2)
        let pending = Task { try await view.resolveAsync(AKLeaf.self, argument: 1) }
        await entered.wait()
        nonisolated(unsafe) let disposable = container
        let disposing = Task { try await disposable.disposeAsync() }
        await akEventually { container.waitersOnCreationsInFlight() >= 2 }
        release.open()
        try await disposing.value
        #expect(try await pending.value.serial == 1)
        #expect(disposed.all.sorted() == [1, 2])
        #expect(disposedAsync.all.sorted() == [1, 2])
        #expect(container.resolve(AKLeaf.self, argument: 1) == nil)
        #expect(container.resolve(AKLeaf.self, argument: 2) == nil)
        #expect(try await view.resolveAsync(AKLeaf.self, argument: 2) !== kept)
        #expect(runs.count == 3)
    }

    @Test func reRegistrationWhileAnAsyncMultitonCreationIsInFlight() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let disposed = SerialLog()
        container.registerAsync(AKLeaf.self) { (_, id: Int) in
            entered.open()
            await release.wait()
            return AKLeaf(serial: id)
        }
        .inObjectScope(.multiton)
        .onDispose { leaf in disposed.add(leaf.serial) }
        let view = container.synchronize()
        let pending = Task { try await view.resolveAsync(AKLeaf.self, argument: 4) }
        await entered.wait()
        container.registerAsync(AKLeaf.self) { (_, id: Int) in AKLeaf(serial: id * 100) }.inObjectScope(.multiton)
        release.open()
        #expect(try await pending.value.serial == 4)
        #expect(disposed.all == [4])
        #expect(try await view.resolveAsync(AKLeaf.self, argument: 4).serial == 400)
    }

    @Test func waitersOfADroppedCreationGetTheInstanceAndTheNextResolveMakesANewOne() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let runs = Counter()
        let disposed = SerialLog()
        registerGatedLeaf(in: container, entered: entered, release: release, runs: runs, disposed: disposed)
        let view = container.synchronize()
        let tasks = (0..<4).map { _ in Task { try await view.resolveAsync(AKLeaf.self) } }
        await entered.wait()
        await akEventually { container.waitersOnCreationsInFlight() >= 4 }
        try container.dispose()
        release.open()
        for task in tasks {
            #expect(try await task.value.serial == 1)
        }
        #expect(disposed.all == [1])
        #expect(try await view.resolveAsync(AKLeaf.self).serial == 2)
        #expect(runs.count == 2)
    }

    // MARK: - Cycles

    @Test func asyncToAsyncToAsyncCycleReportsThePath() async {
        let container = Container()
        container.registerAsync(AKAlpha.self) { r in AKAlpha(beta: try await r.resolveAsync(AKBeta.self)) }
        container.registerAsync(AKBeta.self) { r in AKBeta(alpha: try await r.resolveAsync(AKAlpha.self)) }
        let cycle = DIError.circularDependency(path: [akKey(AKAlpha.self), akKey(AKBeta.self), akKey(AKAlpha.self)])
        await #expect(throws: cycle) { try await container.resolveAsync(AKAlpha.self) }
        await #expect(throws: cycle) { try await container.synchronize().resolveAsync(AKAlpha.self) }
    }

    @Test func asyncContainerCycleThroughASyncFactoryReportsThePathAndKeepsNothing() async {
        let container = Container()
        container.registerAsync(AKAlpha.self) { r in
            _ = try await r.resolveAsync(AKSyncMid.self)
            return AKAlpha(beta: nil)
        }
        .inObjectScope(.container)
        container.register(AKSyncMid.self) { r in AKSyncMid(alpha: try r.resolveThrows(AKAlpha.self)) }
        let cycle = DIError.circularDependency(
            path: [akKey(AKAlpha.self), akKey(AKSyncMid.self), akKey(AKAlpha.self)]
        )
        await #expect(throws: cycle) { try await container.resolveAsync(AKAlpha.self) }
        await #expect(throws: cycle) { try await container.synchronize().resolveAsync(AKAlpha.self) }
        #expect(container.resolve(AKAlpha.self) == nil)
    }

    @Test func aToleratedCycleInAnAsyncMultitonFailsTheTopLevelCallAndKeepsNothing() async {
        let container = Container()
        let runs = Counter()
        container.registerAsync(AKParent.self) { (r, id: Int) in
            _ = runs.next()
            _ = try? await r.resolveAsync(AKChild.self, argument: id)
            return AKParent(serial: id)
        }
        .inObjectScope(.multiton)
        container.registerAsync(AKChild.self) { (r, id: Int) in
            AKChild(parent: try await r.resolveAsync(AKParent.self, argument: id))
        }
        let parentKey = akKey(AKParent.self, argument: Int.self)
        let childKey = akKey(AKChild.self, argument: Int.self)
        let cycle = DIError.circularDependency(path: [parentKey, childKey, parentKey])
        await #expect(throws: cycle) { try await container.resolveAsync(AKParent.self, argument: 3) }
        #expect(container.resolve(AKParent.self, argument: 3) == nil)
        await #expect(throws: cycle) { try await container.synchronize().resolveAsync(AKParent.self, argument: 3) }
        #expect(container.resolve(AKParent.self, argument: 3) == nil)
        #expect(runs.count == 2, "nothing built around the cycle was kept: the factory ran again")
    }

    @Test func aToleratedCycleInsideANestedAsyncContainerCreationFailsTheOuterCall() async {
        let container = Container()
        container.registerAsync(AKLeaf.self) { r in
            _ = try await r.resolveAsync(AKAlpha.self)
            return AKLeaf()
        }
        container.registerAsync(AKAlpha.self) { r in AKAlpha(beta: try? await r.resolveAsync(AKBeta.self)) }
            .inObjectScope(.container)
        container.register(AKBeta.self) { r in AKBeta(alpha: try r.resolveThrows(AKAlpha.self)) }
        // The path is the cycle, from where it starts, as the synchronous engine reports it.
        let cycle = DIError.circularDependency(path: [akKey(AKAlpha.self), akKey(AKBeta.self), akKey(AKAlpha.self)])
        let sync = Container()
        sync.register(AKLeaf.self) { r in
            _ = try r.resolveThrows(AKAlpha.self)
            return AKLeaf()
        }
        sync.register(AKAlpha.self) { r in AKAlpha(beta: try? r.resolveThrows(AKBeta.self)) }.inObjectScope(.container)
        sync.register(AKBeta.self) { r in AKBeta(alpha: try r.resolveThrows(AKAlpha.self)) }
        #expect(throws: cycle) { try sync.resolveThrows(AKLeaf.self) }
        await #expect(throws: cycle) { try await container.synchronize().resolveAsync(AKLeaf.self) }
        await #expect(throws: cycle) { try await container.resolveAsync(AKLeaf.self) }
        #expect(container.resolve(AKAlpha.self) == nil)
    }

    // Nests synchronous resolves on the stack past the depth where the engine checks the stack left.
    @Test(.tags(.stackDepthSensitive)) func recursionWithOtherArgumentsIsNotACycleButEqualArgumentsAre() async throws {
        let container = Container()
        container.registerAsync(AKNode.self) { (r, n: Int) in
            AKNode(next: n > 0 ? try await r.resolveAsync(AKNode.self, argument: n - 1) : nil)
        }
        container.register(AKNode.self, name: "sync") { (r, n: Int) in
            AKNode(next: n > 0 ? try r.resolveThrows(AKNode.self, name: "sync", argument: n - 1) : nil)
        }
        container.registerAsync(AKNode.self, name: "mixed") { (r, n: Int) in
            AKNode(next: try await r.resolveAsync(AKNode.self, name: "sync", argument: n))
        }
        var node: AKNode? = try await container.resolveAsync(AKNode.self, argument: 30)
        var length = 0
        while let current = node {
            length += 1
            node = current.next
        }
        #expect(length == 31)
        _ = try await container.synchronize().resolveAsync(AKNode.self, name: "mixed", argument: 20)

        container.registerAsync(AKNode.self, name: "same") { (r, n: Int) in
            AKNode(next: try await r.resolveAsync(AKNode.self, name: "same", argument: n))
        }
        let same = ServiceKey(serviceType: AKNode.self, name: "same", argumentsType: Int.self, argumentCount: 1)
        await #expect(throws: DIError.circularDependency(path: [same, same])) {
            try await container.resolveAsync(AKNode.self, name: "same", argument: 5)
        }
        // The equal arguments come back after other ones: the cycle starts at the first of them.
        container.registerAsync(AKNode.self, name: "wrap") { (r, n: Int) in
            AKNode(next: try await r.resolveAsync(AKNode.self, name: "wrap", argument: (n + 1) % 3))
        }
        let wrap = ServiceKey(serviceType: AKNode.self, name: "wrap", argumentsType: Int.self, argumentCount: 1)
        await #expect(throws: DIError.circularDependency(path: [wrap, wrap, wrap, wrap])) {
            try await container.resolveAsync(AKNode.self, name: "wrap", argument: 0)
        }
    }

    @Test func crossTaskCycleBetweenAsyncContainerCreationsFailsBothCalls() async {
        let container = Container()
        let bothStarted = Gate()
        let started = Counter()
        container.registerAsync(AKAlpha.self) { r in
            started.increment()
            if started.count == 2 { bothStarted.open() }
            await bothStarted.wait()
            return AKAlpha(beta: try await r.resolveAsync(AKBeta.self))
        }
        .inObjectScope(.container)
        container.registerAsync(AKBeta.self) { r in
            started.increment()
            if started.count == 2 { bothStarted.open() }
            await bothStarted.wait()
            return AKBeta(alpha: try await r.resolveAsync(AKAlpha.self))
        }
        .inObjectScope(.container)
        let view = container.synchronize()
        let a = Task { try await view.resolveAsync(AKAlpha.self) }
        let b = Task { try await view.resolveAsync(AKBeta.self) }
        for result in [await a.result.map { _ in () }, await b.result.map { _ in () }] {
            guard case .failure(let error) = result, case .circularDependency? = error as? DIError else {
                Issue.record("expected a cycle, got \(result)")
                continue
            }
        }
        #expect(container.resolve(AKAlpha.self) == nil)
        #expect(container.resolve(AKBeta.self) == nil)
    }

    // MARK: - Depth and error paths

    /// Links "0" ..< `count`: the first `asyncCount` async (each `resolveAsync`s the next), the rest sync.
    /// The last one throws `AKBoom`, resolves a missing key, or ends, as `end` says.
    private func registerChain(
        in container: Container,
        count: Int,
        asyncCount: Int,
        scope: ObjectScope = .transient,
        end: String = "leaf"
    ) {
        for index in 0..<count {
            let isLast = index == count - 1
            let next = "\(index + 1)"
            if index < asyncCount {
                container.registerAsync(AKNode.self, name: "\(index)") { r in
                    if isLast {
                        switch end {
                        case "throw": throw AKBoom()
                        case "missing": _ = try await r.resolveAsync(AKLeaf.self, name: "missing")
                        default: break
                        }
                        return AKNode(next: nil)
                    }
                    return AKNode(next: try await r.resolveAsync(AKNode.self, name: next))
                }
                .inObjectScope(scope)
            } else {
                container.register(AKNode.self, name: "\(index)") { r in
                    if isLast {
                        switch end {
                        case "throw": throw AKBoom()
                        case "missing": _ = try r.resolveThrows(AKLeaf.self, name: "missing")
                        default: break
                        }
                        return AKNode(next: nil)
                    }
                    return AKNode(next: try r.resolveThrows(AKNode.self, name: next))
                }
                .inObjectScope(scope)
            }
        }
    }

    private func chainKeys(_ range: ClosedRange<Int>) -> [ServiceKey] {
        range.map { akKey(AKNode.self, "\($0)") }
    }

    private func expectDepthFailure(_ error: DIError?, _ comment: Comment) {
        guard case .depthLimitExceeded(let path, let limit)? = error else {
            Issue.record("expected depthLimitExceeded, got \(String(describing: error)) (\(comment))")
            return
        }
        #expect(limit <= ResolutionState.maximumDepth, comment)
        #expect(path == chainKeys(0...limit), "the chain in order, no key repeated (\(comment))")
    }

    // Nests synchronous resolves on the stack past the depth where the engine checks the stack left.
    @Test(.tags(.stackDepthSensitive)) func aMixedChainDeeperThanTheLimitFailsWithItsPathInOrder() async {
        for asyncCount in [1, 50, 150, 199, 200, 201, 300] {
            let container = Container()
            registerChain(in: container, count: 300, asyncCount: asyncCount)
            let plain = await #expect(throws: DIError.self) { try await container.resolveAsync(AKNode.self, name: "0") }
            expectDepthFailure(plain, "plain, \(asyncCount) async")
            let viewed = await #expect(throws: DIError.self) {
                try await container.synchronize().resolveAsync(AKNode.self, name: "0")
            }
            expectDepthFailure(viewed, "view, \(asyncCount) async")
        }
    }

    // Nests synchronous resolves on the stack past the depth where the engine checks the stack left.
    @Test(.tags(.stackDepthSensitive)) func aMixedContainerScopedChainDeeperThanTheLimitFailsAndKeepsNothing() async {
        let container = Container()
        registerChain(in: container, count: 300, asyncCount: 120, scope: .container)
        let viewed = await #expect(throws: DIError.self) {
            try await container.synchronize().resolveAsync(AKNode.self, name: "0")
        }
        expectDepthFailure(viewed, "view, container scope")
        // Nothing made in the failed call is kept: a second call fails the same way (had any link been
        // kept, the chain would now be short enough to resolve).
        let again = await #expect(throws: DIError.self) {
            try await container.synchronize().resolveAsync(AKNode.self, name: "0")
        }
        expectDepthFailure(again, "view, container scope, second call")
        let plain = await #expect(throws: DIError.self) { try await container.resolveAsync(AKNode.self, name: "0") }
        expectDepthFailure(plain, "plain, container scope, third call")
    }

    // Nests synchronous resolves on the stack past the depth where the engine checks the stack left.
    @Test(.tags(.stackDepthSensitive)) func aMixedChainOfExactlyTheLimitResolves() async throws {
        for asyncCount in [1, 100, 199, 200] {
            let container = Container()
            registerChain(in: container, count: ResolutionState.maximumDepth, asyncCount: asyncCount)
            var node: AKNode? = try await container.resolveAsync(AKNode.self, name: "0")
            var length = 0
            while let current = node {
                length += 1
                node = current.next
            }
            #expect(length == ResolutionState.maximumDepth, "\(asyncCount) async")
        }
    }

    // Nests synchronous resolves on the stack past the depth where the engine checks the stack left.
    @Test(.tags(.stackDepthSensitive))
    func aKeptAsyncMultitonInstanceAtTheDepthLimitIsReturnedAsTheSynchronousEngineDoes() async throws {
        // A kept instance needs no creation: the synchronous engine returns it without a frame, at any depth.
        func build(async: Bool) async throws -> Container {
            let container = Container()
            let count = ResolutionState.maximumDepth
            // Links "0" ..< "\(count)"; the last one is registered again below to resolve the kept instance.
            registerChain(in: container, count: count, asyncCount: async ? count : 0)
            if async {
                container.registerAsync(AKNode.self, name: "\(count - 1)") { r in
                    AKNode(next: try await r.resolveAsync(AKNode.self, name: "kept", argument: 1))
                }
                container.registerAsync(AKNode.self, name: "kept") { (_, _: Int) in AKNode(next: nil) }
                    .inObjectScope(.multiton)
                _ = try await container.resolveAsync(AKNode.self, name: "kept", argument: 1)
            } else {
                container.register(AKNode.self, name: "\(count - 1)") { r in
                    AKNode(next: try r.resolveThrows(AKNode.self, name: "kept", argument: 1))
                }
                container.register(AKNode.self, name: "kept") { (_, _: Int) in AKNode(next: nil) }
                    .inObjectScope(.multiton)
                _ = try container.resolveThrows(AKNode.self, name: "kept", argument: 1)
            }
            return container
        }
        let sync = try await build(async: false)
        #expect(throws: Never.self) { try sync.resolveThrows(AKNode.self, name: "0") }
        let async = try await build(async: true)
        await #expect(throws: Never.self) { try await async.resolveAsync(AKNode.self, name: "0") }
        await #expect(throws: Never.self) { try await async.synchronize().resolveAsync(AKNode.self, name: "0") }
    }

    // Nests synchronous resolves on the stack past the depth where the engine checks the stack left.
    @Test(.tags(.stackDepthSensitive))
    func anAsyncGraphInstanceAlreadyInTheGraphAtTheDepthLimitIsReturnedAsTheSynchronousEngineDoes() async throws {
        // "top" resolves the .graph "shared" first, then the chain "0" ..< "200", whose last link resolves
        // "shared" again at the limit: an instance of the graph, no creation.
        func build(async: Bool) -> Container {
            let container = Container()
            let count = ResolutionState.maximumDepth - 1
            registerChain(in: container, count: count, asyncCount: async ? count : 0)
            if async {
                container.registerAsync(AKLeaf.self, name: "shared") { _ in AKLeaf() }
                container.registerAsync(AKNode.self, name: "\(count - 1)") { r in
                    _ = try await r.resolveAsync(AKLeaf.self, name: "shared")
                    return AKNode(next: nil)
                }
                container.registerAsync(AKNode.self, name: "top") { r in
                    _ = try await r.resolveAsync(AKLeaf.self, name: "shared")
                    return AKNode(next: try await r.resolveAsync(AKNode.self, name: "0"))
                }
            } else {
                container.register(AKLeaf.self, name: "shared") { _ in AKLeaf() }
                container.register(AKNode.self, name: "\(count - 1)") { r in
                    _ = try r.resolveThrows(AKLeaf.self, name: "shared")
                    return AKNode(next: nil)
                }
                container.register(AKNode.self, name: "top") { r in
                    _ = try r.resolveThrows(AKLeaf.self, name: "shared")
                    return AKNode(next: try r.resolveThrows(AKNode.self, name: "0"))
                }
            }
            return container
        }
        #expect(throws: Never.self) { try build(async: false).resolveThrows(AKNode.self, name: "top") }
        await #expect(throws: Never.self) { try await build(async: true).resolveAsync(AKNode.self, name: "top") }
    }

    @Test(arguments: [(10, 0), (10, 5), (10, 9), (10, 10)])
    func factoryFailedDeepInsideListsThePathOnce(count: Int, asyncCount: Int) async throws {
        for scope in [ObjectScope.transient, .container] {
            let container = Container()
            registerChain(in: container, count: count, asyncCount: asyncCount, scope: scope, end: "throw")
            for viaView in [false, true] {
                let error = await #expect(throws: DIError.self) {
                    if viaView {
                        _ = try await container.synchronize().resolveAsync(AKNode.self, name: "0")
                    } else {
                        _ = try await container.resolveAsync(AKNode.self, name: "0")
                    }
                }
                guard case .factoryFailed(let key, let path, let underlying)? = error else {
                    Issue.record("expected factoryFailed, got \(String(describing: error))")
                    continue
                }
                #expect(key == akKey(AKNode.self, "\(count - 1)"), "\(scope) view: \(viaView)")
                #expect(path == chainKeys(0...(count - 2)), "\(scope) view: \(viaView)")
                #expect(underlying is AKBoom)
            }
        }
    }

    @Test(arguments: [(10, 0), (10, 5), (10, 9), (10, 10)])
    func notRegisteredDeepInsideListsThePathOnce(count: Int, asyncCount: Int) async throws {
        for scope in [ObjectScope.transient, .container] {
            let container = Container()
            registerChain(in: container, count: count, asyncCount: asyncCount, scope: scope, end: "missing")
            for viaView in [false, true] {
                let error = await #expect(throws: DIError.self) {
                    if viaView {
                        _ = try await container.synchronize().resolveAsync(AKNode.self, name: "0")
                    } else {
                        _ = try await container.resolveAsync(AKNode.self, name: "0")
                    }
                }
                guard case .notRegistered(let key, let path, _)? = error else {
                    Issue.record("expected notRegistered, got \(String(describing: error))")
                    continue
                }
                #expect(key == akKey(AKLeaf.self, "missing"))
                #expect(path == chainKeys(0...(count - 1)), "\(scope) view: \(viaView)")
            }
        }
    }

    @Test func aMainActorFactoryInsideAnAsyncChainReportsTheFullPath() async {
        let container = Container()
        // Failing main-actor path.
        container.registerAsync(AKNode.self, name: "f0") { r in
            AKNode(next: try await r.resolveAsync(AKNode.self, name: "f1"))
        }
        container.register(AKNode.self, name: "f1", mainActorFactory: { _ in AKNode(next: nil) })
            .initCompleted { r, _ in _ = try r.resolveThrows(AKLeaf.self, name: "missing") }
        let error = await #expect(throws: DIError.self) {
            try await container.synchronize().resolveAsync(AKNode.self, name: "f0")
        }
        guard case .notRegistered(let key, let path, _)? = error else {
            Issue.record("expected notRegistered, got \(String(describing: error))")
            return
        }
        #expect(key == akKey(AKLeaf.self, "missing"))
        #expect(path == [akKey(AKNode.self, "f0"), akKey(AKNode.self, "f1")])
    }

    @Test func aFailureBelowAMainActorFactoryInsideAnAsyncChainListsEveryKeyOnce() async {
        let container = Container()
        container.registerAsync(AKNode.self, name: "0") { r in
            AKNode(next: try await r.resolveAsync(AKNode.self, name: "1"))
        }
        container.registerAsync(AKNode.self, name: "1") { r in
            AKNode(next: try await r.resolveAsync(AKNode.self, name: "2"))
        }
        container.register(
            AKNode.self,
            name: "2",
            mainActorFactory: { r in
                (try? r.resolveThrows(AKNode.self, name: "3")) ?? AKNode(next: nil)
            }
        )
        container.register(AKNode.self, name: "3") { r in
            _ = try r.resolveThrows(AKLeaf.self, name: "missing")
            return AKNode(next: nil)
        }
        container.register(AKNode.self, name: "4", mainActorFactory: { _ in AKNode(next: nil) })
            .initCompleted { r, _ in _ = try r.resolveThrows(AKNode.self, name: "3") }
        container.registerAsync(AKNode.self, name: "5") { r in
            AKNode(next: try await r.resolveAsync(AKNode.self, name: "4"))
        }
        // A miss the main-actor factory tolerated does not fail the call.
        _ = await #expect(throws: Never.self) { try await container.synchronize().resolveAsync(AKNode.self, name: "0") }
        let error = await #expect(throws: DIError.self) {
            try await container.synchronize().resolveAsync(AKNode.self, name: "5")
        }
        guard case .notRegistered(let key, let path, _)? = error else {
            Issue.record("expected notRegistered, got \(String(describing: error))")
            return
        }
        #expect(key == akKey(AKLeaf.self, "missing"))
        #expect(path == [akKey(AKNode.self, "5"), akKey(AKNode.self, "4"), akKey(AKNode.self, "3")])
    }

    // Nests synchronous resolves on the stack past the depth where the engine checks the stack left.
    @Test(.tags(.stackDepthSensitive)) func aDepthFailureFromInsideInitCompletedMatchesTheSynchronousEngine()
        async throws
    {
        // Links "0" ..< "199"; the last one's initCompleted resolves "x0" -> "x1" -> ... (sync).
        func build(async: Bool) -> Container {
            let container = Container()
            registerChain(in: container, count: 199, asyncCount: async ? 199 : 0)
            let last = "198"
            if async {
                container.registerAsync(AKNode.self, name: last) { _ in AKNode(next: nil) }
                    .initCompleted { r, _ in _ = try r.resolveThrows(AKNode.self, name: "x0") }
            } else {
                container.register(AKNode.self, name: last) { _ in AKNode(next: nil) }
                    .initCompleted { r, _ in _ = try r.resolveThrows(AKNode.self, name: "x0") }
            }
            for index in 0..<10 {
                container.register(AKNode.self, name: "x\(index)") { r in
                    AKNode(next: index < 9 ? try r.resolveThrows(AKNode.self, name: "x\(index + 1)") : nil)
                }
            }
            return container
        }
        let sync = try #require(throws: DIError.self) { try build(async: false).resolveThrows(AKNode.self, name: "0") }
        let plain = await #expect(throws: DIError.self) {
            try await build(async: true).resolveAsync(AKNode.self, name: "0")
        }
        let viewed = await #expect(throws: DIError.self) {
            try await build(async: true).synchronize().resolveAsync(AKNode.self, name: "0")
        }
        guard case .depthLimitExceeded(let path, _) = sync else {
            Issue.record("expected depthLimitExceeded, got \(sync)")
            return
        }
        #expect(path == chainKeys(0...198) + [akKey(AKNode.self, "x0"), akKey(AKNode.self, "x1")])
        #expect(plain == sync)
        #expect(viewed == sync)
    }

    // Nests synchronous resolves on the stack past the depth where the engine checks the stack left.
    @Test(.tags(.stackDepthSensitive)) func recursionWithTupleAndNonEquatableArgumentsFollowsTheEngineRule()
        async throws
    {
        let container = Container()
        container.registerAsync(AKNode.self) { (r, n: Int, label: String) in
            AKNode(next: n > 0 ? try await r.resolveAsync(AKNode.self, arguments: n - 1, label) : nil)
        }
        _ = try await container.resolveAsync(AKNode.self, arguments: 5, "a")
        container.registerAsync(AKNode.self, name: "same") { (r, n: Int, label: String) in
            AKNode(next: try await r.resolveAsync(AKNode.self, name: "same", arguments: n, label))
        }
        let same = ServiceKey(
            serviceType: AKNode.self,
            name: "same",
            argumentsType: (Int, String).self,
            argumentCount: 2
        )
        await #expect(throws: DIError.circularDependency(path: [same, same])) {
            try await container.resolveAsync(AKNode.self, name: "same", arguments: 1, "b")
        }
        // Not Equatable: compared bitwise.
        container.registerAsync(AKNode.self, name: "box") { (r, box: AKCountdown) in
            AKNode(
                next: box.n > 0
                    ? try await r.resolveAsync(AKNode.self, name: "box", argument: AKCountdown(n: box.n - 1)) : nil
            )
        }
        _ = try await container.resolveAsync(AKNode.self, name: "box", argument: AKCountdown(n: 6))
        container.registerAsync(AKNode.self, name: "stuck") { (r, box: AKCountdown) in
            AKNode(next: try await r.resolveAsync(AKNode.self, name: "stuck", argument: box))
        }
        let stuck = ServiceKey(
            serviceType: AKNode.self,
            name: "stuck",
            argumentsType: AKCountdown.self,
            argumentCount: 1
        )
        await #expect(throws: DIError.circularDependency(path: [stuck, stuck])) {
            try await container.resolveAsync(AKNode.self, name: "stuck", argument: AKCountdown(n: 2))
        }
    }

    @Test func aCycleThroughAForwardedAsyncKeyMatchesTheSynchronousEngine() async throws {
        func build(async: Bool) -> Container {
            let container = Container()
            if async {
                container.registerAsync(AKAlpha.self) { r in
                    _ = try await r.resolveAsync(AKForwarded.self)
                    return AKAlpha(beta: nil)
                }
                .implements(AKForwarded.self)
                .inObjectScope(.container)
            } else {
                container.register(AKAlpha.self) { r in
                    _ = try r.resolveThrows(AKForwarded.self)
                    return AKAlpha(beta: nil)
                }
                .implements(AKForwarded.self)
                .inObjectScope(.container)
            }
            return container
        }
        let sync = try #require(throws: DIError.self) { try build(async: false).resolveThrows(AKAlpha.self) }
        let plain = await #expect(throws: DIError.self) { try await build(async: true).resolveAsync(AKAlpha.self) }
        let viewed = await #expect(throws: DIError.self) {
            try await build(async: true).synchronize().resolveAsync(AKAlpha.self)
        }
        guard case .circularDependency = sync else {
            Issue.record("expected a cycle, got \(sync)")
            return
        }
        #expect(plain == sync)
        #expect(viewed == sync)
    }

    @Test func anErrorBelowAForwardedAsyncKeyMatchesTheSynchronousEngine() async throws {
        // AKLeaf -> AKForwarded (forwarded to AKAlpha) -> missing, and AKNode -> AKForwarded, which throws.
        func build(async: Bool, throwing: Bool) -> Container {
            let container = Container()
            if async {
                container.registerAsync(AKLeaf.self) { r in
                    _ = try await r.resolveAsync(AKForwarded.self)
                    return AKLeaf()
                }
                container.registerAsync(AKAlpha.self) { r in
                    if throwing { throw AKBoom() }
                    _ = try await r.resolveAsync(AKBeta.self, name: "missing")
                    return AKAlpha(beta: nil)
                }
                .implements(AKForwarded.self)
            } else {
                container.register(AKLeaf.self) { r in
                    _ = try r.resolveThrows(AKForwarded.self)
                    return AKLeaf()
                }
                container.register(AKAlpha.self) { r in
                    if throwing { throw AKBoom() }
                    _ = try r.resolveThrows(AKBeta.self, name: "missing")
                    return AKAlpha(beta: nil)
                }
                .implements(AKForwarded.self)
            }
            return container
        }
        for throwing in [false, true] {
            let sync = try #require(throws: DIError.self) {
                try build(async: false, throwing: throwing).resolveThrows(AKLeaf.self)
            }
            let plain = await #expect(throws: DIError.self) {
                try await build(async: true, throwing: throwing).resolveAsync(AKLeaf.self)
            }
            let viewed = await #expect(throws: DIError.self) {
                try await build(async: true, throwing: throwing).synchronize().resolveAsync(AKLeaf.self)
            }
            #expect(plain?.description == sync.description, "throwing: \(throwing)")
            #expect(viewed?.description == sync.description, "throwing: \(throwing)")
            switch (sync, plain) {
            case (.notRegistered(_, let syncPath, _), .notRegistered(_, let asyncPath, _)?):
                #expect(asyncPath == syncPath)
            case (.factoryFailed(let syncKey, let syncPath, _), .factoryFailed(let asyncKey, let asyncPath, _)?):
                #expect(asyncKey == syncKey)
                #expect(asyncPath == syncPath)
            default:
                Issue.record("sync \(sync), async \(String(describing: plain))")
            }
        }
    }

    @Test func warmUpWithACycleBetweenAsyncContainerServicesFailsWithoutHanging() async {
        let container = Container()
        container.registerAsync(AKAlpha.self) { r in AKAlpha(beta: try await r.resolveAsync(AKBeta.self)) }
            .inObjectScope(.container)
        container.registerAsync(AKBeta.self) { r in AKBeta(alpha: try await r.resolveAsync(AKAlpha.self)) }
            .inObjectScope(.container)
        let error = await #expect(throws: DIError.self) { try await container.warmUp() }
        guard case .circularDependency? = error else {
            Issue.record("expected a cycle, got \(String(describing: error))")
            return
        }
        #expect(container.resolve(AKAlpha.self) == nil)
        #expect(container.resolve(AKBeta.self) == nil)
    }

    // MARK: - .graph, .weak and custom scopes

    @Test func aGraphServiceIsSharedByEverySubResolveOfOneCall() async throws {
        let container = Container()
        let made = Counter()
        container.register(AKLeaf.self) { _ in AKLeaf(serial: made.next()) }
        container.register(AKPair.self, name: "sync") { r in
            AKPair(first: try r.resolveThrows(AKLeaf.self), second: try r.resolveThrows(AKLeaf.self))
        }
        container.registerAsync(AKPair.self, name: "async") { r in
            AKPair(first: try await r.resolveAsync(AKLeaf.self), second: try r.resolveThrows(AKLeaf.self))
        }
        container.registerAsync(AKPair.self, name: "shared") { r in
            AKPair(first: try await r.resolveAsync(AKLeaf.self), second: try r.resolveThrows(AKLeaf.self))
        }
        .inObjectScope(.container)
        container.registerAsync(AKNode.self) { r in
            let leaf = try await r.resolveAsync(AKLeaf.self)
            let sync = try await r.resolveAsync(AKPair.self, name: "sync")
            let async = try await r.resolveAsync(AKPair.self, name: "async")
            let shared = try await r.resolveAsync(AKPair.self, name: "shared")
            for other in [sync.first, sync.second, async.first, async.second, shared.first, shared.second] {
                #expect(other === leaf, "one .graph instance per top-level call")
            }
            return AKNode(next: nil)
        }
        _ = try await container.resolveAsync(AKNode.self)
        #expect(made.count == 1)
        container.resetObjectScope(.container)
        _ = try await container.synchronize().resolveAsync(AKNode.self)
        #expect(made.count == 2, "a second top-level call gets a new one")
    }

    @Test func anAsyncGraphServiceIsSharedWithinACallAndNewAcrossCalls() async throws {
        let container = Container()
        let made = Counter()
        container.registerAsync(AKLeaf.self) { _ in
            await Task.yield()
            return AKLeaf(serial: made.next())
        }
        container.register(AKPair.self, name: "sync") { r in
            // The async .graph instance exists in the graph by now: a sync resolve finds it.
            AKPair(first: try r.resolveThrows(AKLeaf.self), second: try r.resolveThrows(AKLeaf.self))
        }
        container.registerAsync(AKPair.self) { r in
            let first = try await r.resolveAsync(AKLeaf.self)
            let second = try await r.resolveAsync(AKLeaf.self)
            let sync = try await r.resolveAsync(AKPair.self, name: "sync")
            #expect(sync.first === first)
            return AKPair(first: first, second: second)
        }
        let view = container.synchronize()
        let one = try await view.resolveAsync(AKPair.self)
        let two = try await container.resolveAsync(AKPair.self)
        #expect(one.first === one.second)
        #expect(two.first === two.second)
        #expect(one.first !== two.first)
        #expect(made.count == 2)
    }

    @Test func anAsyncWeakServiceIsSharedWhileHeld() async throws {
        let container = Container()
        let made = Counter()
        container.registerAsync(AKLeaf.self) { _ in AKLeaf(serial: made.next()) }.inObjectScope(.weak)
        let view = container.synchronize()
        var held: AKLeaf? = try await view.resolveAsync(AKLeaf.self)
        let again = try await container.resolveAsync(AKLeaf.self)
        #expect(again === held)
        #expect(container.resolve(AKLeaf.self) === held, "a sync resolve returns the weak instance held")
        #expect(made.count == 1)
        weak let observed = held
        held = nil
        _ = again
        #expect(observed != nil)
    }

    @Test func anAsyncWeakServiceIsRecreatedOnceReleased() async throws {
        let container = Container()
        let made = Counter()
        container.registerAsync(AKLeaf.self) { _ in AKLeaf(serial: made.next()) }.inObjectScope(.weak)
        weak var observed: AKLeaf?
        do {
            let held = try await container.resolveAsync(AKLeaf.self)
            observed = held
            #expect(try await container.resolveAsync(AKLeaf.self) === held)
        }
        #expect(observed == nil, "the container holds a .weak instance weakly")
        let next = try await container.resolveAsync(AKLeaf.self)
        #expect(next.serial == 2)
    }

    @Test func anAsyncServiceInACustomScopeIsKeptUntilReset() async throws {
        let container = Container()
        let made = Counter()
        let session = ObjectScope(storageFactory: PermanentStorage.init, description: "session")
        container.registerAsync(AKLeaf.self) { _ in
            await Task.yield()
            return AKLeaf(serial: made.next())
        }
        .inObjectScope(session)
        let view = container.synchronize()
        let one = try await view.resolveAsync(AKLeaf.self)
        #expect(try await container.resolveAsync(AKLeaf.self) === one)
        #expect(container.resolve(AKLeaf.self) === one)
        container.resetObjectScope(session)
        let two = try await view.resolveAsync(AKLeaf.self)
        #expect(two !== one)
        #expect(made.count == 2)
    }

    @Test func resetOfACustomScopeWhileItsAsyncFactoryIsSuspendedKeepsNothingFromBeforeTheReset() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let made = Counter()
        let session = ObjectScope(storageFactory: PermanentStorage.init, description: "session")
        container.registerAsync(AKLeaf.self) { _ in
            let serial = made.next()
            if serial == 1 {
                entered.open()
                await release.wait()
            }
            return AKLeaf(serial: serial)
        }
        .inObjectScope(session)
        let view = container.synchronize()
        let pending = Task { try await view.resolveAsync(AKLeaf.self) }
        await entered.wait()
        // Logout while the old session's instance is still being made.
        container.resetObjectScope(session)
        release.open()
        #expect(try await pending.value.serial == 1)
        // ARCHITECTURE.md, Invariants: "A creation in flight whose scope is dropped ... keeps nothing".
        let next = try await view.resolveAsync(AKLeaf.self)
        #expect(next.serial == 2, "the instance made for the scope before its reset was kept after it")
    }

    // MARK: - Tasks, cancellation, captured containers, deinit

    @Test func cancellingAWaiterThroughTheViewLeavesTheCreationToTheOthers() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let runs = Counter()
        let disposed = SerialLog()
        registerGatedLeaf(in: container, entered: entered, release: release, runs: runs, disposed: disposed)
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(AKLeaf.self) }
        await entered.wait()
        let second = Task { try await view.resolveAsync(AKLeaf.self) }
        await akEventually { container.waitersOnCreationsInFlight() >= 2 }
        first.cancel()
        let error = await #expect(throws: DIError.self) { try await first.value }
        guard case .factoryFailed(_, _, let underlying)? = error else {
            Issue.record("expected a cancellation, got \(String(describing: error))")
            return
        }
        #expect(underlying is CancellationError)
        release.open()
        let leaf = try await second.value
        #expect(leaf.serial == 1)
        #expect(container.resolve(AKLeaf.self) === leaf)
        #expect(runs.count == 1)
        #expect(disposed.all.isEmpty)
    }

    @Test func aTaskSpawnedInAFactoryAndKeptAfterwardsResolvesLater() async throws {
        let container = Container()
        let made = Counter()
        let later = Gate()
        let spawned = LockedValue<Task<AKLeaf?, Never>?>(nil)
        container.register(AKLeaf.self) { _ in AKLeaf(serial: made.next()) }
        container.registerAsync(AKPair.self) { r in
            let leaf = try await r.resolveAsync(AKLeaf.self)
            let resolver = AKResolverBox(r)
            let task = Task<AKLeaf?, Never> {
                await later.wait()
                return try? await resolver.resolver.resolveAsync(AKLeaf.self)
            }
            spawned.withLock { $0 = task }
            return AKPair(first: leaf, second: leaf)
        }
        let pair = try await container.synchronize().resolveAsync(AKPair.self)
        later.open()
        let task = try #require(spawned.withLock { $0 })
        let leaf = try #require(await task.value)
        #expect(leaf !== pair.first, "the finished call's graph is not reused")
        #expect(made.count == 2)
    }

    @Test func aFactoryCapturingTheContainerDoesNotDeadlockAndSharesTheGraph() async throws {
        let container = Container()
        nonisolated(unsafe) let captured = container
        let view = container.synchronize()
        container.register(AKLeaf.self) { _ in AKLeaf() }
        container.registerAsync(AKPair.self) { r in
            let first = try await r.resolveAsync(AKLeaf.self)
            let second = try await view.resolveAsync(AKLeaf.self)
            _ = captured
            return AKPair(first: first, second: second)
        }
        .inObjectScope(.container)
        let pair = try await view.resolveAsync(AKPair.self)
        #expect(pair.first === pair.second, "the same task, the same call: the same graph")
    }

    @Test func anInstanceWhoseDeinitResolvesReleasedWhileAnAsyncCallIsInFlight() async throws {
        let container = Container()
        nonisolated(unsafe) let resetting = container
        let view = container.synchronize()
        let resolvedInDeinit = Counter()
        container.register(AKLeaf.self) { _ in AKLeaf() }
        container.register(AKDeinitResolver.self) { _ in
            AKDeinitResolver {
                if view.resolve(AKLeaf.self) != nil { resolvedInDeinit.increment() }
            }
        }
        .inObjectScope(.container)
        container.registerAsync(AKPair.self) { r in
            _ = try r.resolveThrows(AKDeinitResolver.self)
            let first = try await r.resolveAsync(AKLeaf.self)
            // Drops the container instance whose deinit resolves, in the middle of the call.
            resetting.resetObjectScope(.container)
            let second = try await r.resolveAsync(AKLeaf.self)
            return AKPair(first: first, second: second)
        }
        let pair = try await view.resolveAsync(AKPair.self)
        #expect(pair.first === pair.second)
        #expect(resolvedInDeinit.count == 1)
    }

    @Test func manyTasksThroughTheViewMixingScopes() async throws {
        let container = Container()
        let sharedRuns = Counter()
        let multitonRuns = Counter()
        container.registerAsync(AKParent.self) { _ in
            await Task.yield()
            return AKParent(serial: sharedRuns.next())
        }
        .inObjectScope(.container)
        container.registerAsync(AKLeaf.self) { (r, id: Int) in
            _ = try await r.resolveAsync(AKParent.self)
            _ = multitonRuns.next()
            return AKLeaf(serial: id)
        }
        .inObjectScope(.multiton)
        container.register(AKChild.self) { r in AKChild(parent: try r.resolveThrows(AKParent.self)) }
        container.registerAsync(AKPair.self) { (r, id: Int) in
            let leaf = try await r.resolveAsync(AKLeaf.self, argument: id)
            let child = try await r.resolveAsync(AKChild.self)
            #expect(child.parent != nil)
            return AKPair(first: leaf, second: try await r.resolveAsync(AKLeaf.self, argument: id))
        }
        let view = container.synchronize()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let pair = try await view.resolveAsync(AKPair.self, argument: index % 5)
                    #expect(pair.first === pair.second)
                    #expect(pair.first.serial == index % 5)
                }
            }
            try await group.waitForAll()
        }
        #expect(sharedRuns.count == 1)
        #expect(multitonRuns.count == 5)
    }
}

private final class AKDeinitResolver: Sendable {
    let onDeinit: @Sendable () -> Void
    init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

/// A resolver kept out of its factory, to use later.
private struct AKResolverBox: @unchecked Sendable {
    // @unchecked: the resolver an async factory is handed is `Sendable`; `any Resolver` does not say so.
    let resolver: any Resolver
    init(_ resolver: any Resolver) { self.resolver = resolver }
}

import Foundation
import Testing

@testable import Keystone

// Attacks on the insight features: creation profiles, overlapping `warmUp()`, captive-dependency
// validation, and drops while a creation is in flight.

// MARK: - Fixtures

private final class IXA: Sendable {
    let id: Int
    init(_ id: Int = 0) { self.id = id }
}

private final class IXB: Sendable {
    let id: Int
    init(_ id: Int = 0) { self.id = id }
}

private final class IXC: Sendable {
    let id: Int
    init(_ id: Int = 0) { self.id = id }
}

private final class IXD: Sendable {
    let id: Int
    init(_ id: Int = 0) { self.id = id }
}

private final class IXE: Sendable {
    let id: Int
    init(_ id: Int = 0) { self.id = id }
}

private final class IXSession: Sendable {
    let who: String
    init(_ who: String) { self.who = who }
}

private final class IXCart: Sendable {
    let session: IXSession?
    init(_ session: IXSession?) { self.session = session }
}

private final class IXMid: Sendable {
    let session: IXSession?
    init(_ session: IXSession?) { self.session = session }
}

private final class IXStore: Sendable {}

private final class IXLazyCart: @unchecked Sendable {
    let session: Lazy<IXSession>?
    init(_ session: Lazy<IXSession>?) { self.session = session }
}

private protocol IXProto: AnyObject, Sendable {}
private final class IXImpl: IXProto {}
private final class IXProtoCart: Sendable {
    let proto: (any IXProto)?
    init(_ proto: (any IXProto)?) { self.proto = proto }
}

private final class IXBackParent: @unchecked Sendable {
    let id: Int
    var child: IXBackChild?
    init(_ id: Int) { self.id = id }
}

private final class IXBackChild: @unchecked Sendable {
    weak var parent: IXBackParent?
    init(_ parent: IXBackParent?) { self.parent = parent }
}

private struct IXBoom: Error {}

/// A container handed to `@Sendable` closures: the tests use it only as the engine allows.
private struct IXRef: @unchecked Sendable {
    let c: Container
}

/// A slot written once from any thread.
private final class IXSlot<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T?
    func set(_ value: T) {
        lock.lock()
        stored = value
        lock.unlock()
    }
    var value: T? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// Detects two factories running at the same time on different threads.
private final class IXParallelDetector: @unchecked Sendable {
    private let lock = NSLock()
    private var busy = false
    private var overlaps = 0
    func enter() {
        lock.lock()
        if busy { overlaps += 1 }
        busy = true
        lock.unlock()
    }
    func leave() {
        lock.lock()
        busy = false
        lock.unlock()
    }
    var overlapCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return overlaps
    }
}

private func ixKey(_ type: Any.Type, name: String? = nil) -> ServiceKey {
    ServiceKey(serviceType: type, name: name)
}

/// The synchronous `profilingCreations`, chosen explicitly (an async context would prefer the async one).
private func ixProfileSync<R>(_ container: Container, _ body: () throws -> R) rethrows -> (
    result: R, profile: CreationProfile
) {
    try container.profilingCreations(body)
}

private func ixSpin(microseconds: Int) {
    let end = ContinuousClock.now + .microseconds(microseconds)
    while ContinuousClock.now < end {}
}

private func ixWaitUntil(_ condition: () -> Bool) async {
    for _ in 0..<5000 {
        if condition() { return }
        try? await Task.sleep(for: .milliseconds(1))
    }
}

/// Structural invariants every profile must satisfy.
private func ixCheckInvariants(_ profile: CreationProfile, sourceLocation: SourceLocation = #_sourceLocation) {
    let records = profile.records
    for index in records.indices {
        let record = records[index]
        #expect(record.selfDuration >= .zero, "record \(index): negative self time", sourceLocation: sourceLocation)
        #expect(
            record.duration >= record.selfDuration,
            "record \(index): self time exceeds duration",
            sourceLocation: sourceLocation
        )
        if index > 0 {
            #expect(
                records[index - 1].start <= record.start,
                "records \(index - 1) and \(index) are not in start order",
                sourceLocation: sourceLocation
            )
        }
        if let parent = record.parent {
            #expect(
                parent < index,
                "record \(index): parent \(parent) does not precede it",
                sourceLocation: sourceLocation
            )
            if parent < index, parent >= 0 {
                #expect(records[parent].start <= record.start, sourceLocation: sourceLocation)
            }
        }
    }
}

// MARK: - Profiles

@Suite("Insight attacks: creation profiles", .tags(.concurrency), .hangLimit)
struct InsightAttackProfileTests {
    @Test("A profile started inside an async factory's synchronous resolve has no parent from the outer profile")
    func innerProfileInsideAsyncFactory() async throws {
        let container = Container()
        let ref = IXRef(c: container)
        let innerSlot = IXSlot<CreationProfile>()
        container.register(IXB.self) { _ in IXB() }
        container.registerAsync(IXA.self) { r in
            let (_, inner) = ixProfileSync(ref.c) { r.resolve(IXB.self) }
            innerSlot.set(inner)
            return IXA()
        }
        let (_, outer) = try await container.profilingCreations {
            try await container.resolveAsync(IXA.self)
        }
        let inner = try #require(innerSlot.value)
        #expect(outer.records.map(\.key) == [ixKey(IXA.self)])
        #expect(inner.records.map(\.key) == [ixKey(IXB.self)])
        // IXB was asked for directly in the inner body: no record of the inner profile holds it.
        #expect(inner.records.first?.parent == nil)
        ixCheckInvariants(inner)
        #expect(container.profiler == nil)
    }

    @Test("Two async profiles whose bodies overlap leave no profiler installed once both end", .timeLimit(.minutes(1)))
    func overlappingProfilesLeaveNothingInstalled() async throws {
        let container = Container()
        let ref = IXRef(c: container)
        container.register(IXA.self) { _ in IXA() }
        let aStarted = Gate()
        let aRelease = Gate()
        let bStarted = Gate()
        let bRelease = Gate()
        let first = Task {
            await ref.c.profilingCreations {
                aStarted.open()
                await aRelease.wait()
                return 1
            }.profile
        }
        await aStarted.wait()
        let second = Task {
            await ref.c.profilingCreations {
                bStarted.open()
                await bRelease.wait()
                return 2
            }.profile
        }
        await bStarted.wait()
        aRelease.open()
        _ = await first.value
        bRelease.open()
        _ = await second.value
        // "Outside such a call nothing is recorded, and resolves pay nothing for it."
        #expect(container.profiler == nil)
        _ = container.resolve(IXA.self)
    }

    @Test("Records stay in start order when many async creations start at once", .timeLimit(.minutes(1)))
    func startOrderUnderConcurrency() async throws {
        let container = Container()
        let view = container.synchronize()
        container.registerAsync(IXA.self) { r in
            await Task.yield()
            return IXA(r.resolve(IXB.self)?.id ?? -1)
        }
        container.register(IXB.self) { _ in IXB(1) }
        for _ in 0..<5 {
            let (_, profile) = await container.profilingCreations {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<200 {
                        group.addTask { _ = try? await view.resolveAsync(IXA.self) }
                    }
                }
            }
            #expect(profile.records.count == 400)
            ixCheckInvariants(profile)
            // Each IXB started inside exactly one IXA.
            let bParents = profile.records.filter { $0.key == ixKey(IXB.self) }.map(\.parent)
            #expect(bParents.allSatisfy { $0 != nil })
            #expect(Set(bParents.compactMap { $0 }).count == 200)
            #expect(bParents.compactMap { $0 }.allSatisfy { profile.records[$0].key == ixKey(IXA.self) })
        }
    }

    @Test("Async factories awaiting async ones, sync ones inside async ones, and initCompleted resolves nest")
    func asyncNesting() async throws {
        let container = Container()
        container.registerAsync(IXA.self) { r in
            let b = try await r.resolveAsync(IXB.self)
            return IXA(b.id)
        }
        container.registerAsync(IXB.self) { r in
            _ = r.resolve(IXC.self)
            return IXB(2)
        }
        container.register(IXC.self) { _ in IXC() }
            .initCompleted { r, _ in _ = r.resolve(IXD.self) }
        container.register(IXD.self) { _ in IXD() }
        let (_, profile) = try await container.profilingCreations {
            try await container.resolveAsync(IXA.self)
        }
        #expect(
            profile.records.map(\.key) == [ixKey(IXA.self), ixKey(IXB.self), ixKey(IXC.self), ixKey(IXD.self)]
        )
        #expect(profile.records.map(\.parent) == [nil, 0, 1, 2])
        ixCheckInvariants(profile)
        #expect(profile.records[0].duration >= profile.records[1].duration)
    }

    @Test("An async factory's initCompleted resolve is recorded inside it")
    func asyncInitCompletedNesting() async throws {
        let container = Container()
        container.registerAsync(IXA.self) { _ in IXA() }
            .initCompleted { r, _ in _ = r.resolve(IXD.self) }
        container.register(IXD.self) { _ in IXD() }
        let (_, profile) = try await container.profilingCreations {
            try await container.resolveAsync(IXA.self)
        }
        #expect(profile.records.map(\.key) == [ixKey(IXA.self), ixKey(IXD.self)])
        #expect(profile.records.map(\.parent) == [nil, 0])
        ixCheckInvariants(profile)
    }

    @Test("A main-actor factory resolved by an async one off the main actor is recorded inside it")
    func mainActorInsideAsync() async throws {
        let container = Container()
        container.registerAsync(IXA.self) { r in
            _ = try await r.resolveAsync(IXB.self)
            return IXA()
        }
        container.register(IXB.self, mainActorFactory: { _ in IXB() })
        let profile = try await Task.detached {
            try await container.profilingCreations {
                try await container.resolveAsync(IXA.self)
            }.profile
        }.value
        #expect(profile.records.map(\.key) == [ixKey(IXA.self), ixKey(IXB.self)])
        #expect(profile.records.map(\.parent) == [nil, 0])
        ixCheckInvariants(profile)
    }

    @Test("Stand-ins of async and main-actor factories and cached instances are never recorded")
    func standInsAndCachedNotRecorded() async throws {
        let container = Container()
        container.registerAsync(IXA.self) { _ in IXA() }.inObjectScope(.container)
        container.register(IXB.self) { r in IXB(r.resolve(IXA.self)?.id ?? -1) }
        let (_, before) = ixProfileSync(container) {
            (container.resolve(IXA.self), container.resolve(IXB.self))
        }
        // IXA's sync stand-in fails; IXB's factory ran.
        #expect(before.records.map(\.key) == [ixKey(IXB.self)])
        let (_, during) = try await container.profilingCreations {
            _ = try await container.resolveAsync(IXA.self)
            _ = try await container.resolveAsync(IXA.self)
        }
        #expect(during.records.map(\.key) == [ixKey(IXA.self)])
        let (_, after) = ixProfileSync(container) { container.resolve(IXA.self) }
        #expect(after.records.isEmpty)
    }

    @Test("A Task started in the body that creates after the body returned is not recorded")
    func taskAfterBody() async throws {
        let container = Container()
        let ref = IXRef(c: container)
        container.register(IXA.self) { _ in IXA() }
        container.register(IXB.self) { _ in IXB() }
        let gate = Gate()
        let slot = IXSlot<Task<Void, Never>>()
        let (_, profile) = container.profilingCreations {
            slot.set(
                Task {
                    await gate.wait()
                    _ = ref.c.resolve(IXB.self)
                }
            )
            _ = container.resolve(IXA.self)
        }
        gate.open()
        await slot.value?.value
        #expect(profile.records.map(\.key) == [ixKey(IXA.self)])
        #expect(container.profiler == nil)
    }

    @Test("A throwing body leaves no profiler; nested sync profiles restore the outer one")
    func throwingAndNestedBodies() throws {
        let container = Container()
        container.register(IXA.self) { _ in IXA() }
        container.register(IXB.self) { _ in IXB() }
        #expect(throws: IXBoom.self) {
            _ = try container.profilingCreations { () throws -> Int in
                _ = container.resolve(IXA.self)
                throw IXBoom()
            }
        }
        #expect(container.profiler == nil)
        let (inner, outer) = container.profilingCreations {
            _ = container.resolve(IXA.self)
            let inner = container.profilingCreations { container.resolve(IXB.self) }.profile
            _ = container.resolve(IXA.self)
            return inner
        }
        #expect(inner.records.map(\.key) == [ixKey(IXB.self)])
        #expect(outer.records.map(\.key) == [ixKey(IXA.self), ixKey(IXA.self)])
        #expect(container.profiler == nil)
    }

    @Test("A profile started inside a sync factory records only its body, with no foreign parent")
    func profileInsideSyncFactory() throws {
        let container = Container()
        let innerSlot = IXSlot<CreationProfile>()
        container.register(IXC.self) { _ in IXC() }
        container.register(IXB.self) { r in
            let (_, inner) = container.profilingCreations { r.resolve(IXC.self) }
            innerSlot.set(inner)
            return IXB()
        }
        container.register(IXA.self) { r in IXA(r.resolve(IXB.self)!.id) }
        let (_, outer) = container.profilingCreations { container.resolve(IXA.self) }
        let inner = try #require(innerSlot.value)
        #expect(inner.records.map(\.key) == [ixKey(IXC.self)])
        #expect(inner.records.first?.parent == nil)
        #expect(outer.records.map(\.key) == [ixKey(IXA.self), ixKey(IXB.self)])
        ixCheckInvariants(outer)
        ixCheckInvariants(inner)
    }

    @Test("Child, synchronized view, Lazy and Provider resolved later: parents follow the resolve")
    func childViewLazyProvider() throws {
        let parent = Container()
        let child = Container(parent: parent)
        let view = child.synchronize()
        parent.register(IXA.self) { _ in IXA() }
        child.register(IXB.self) { r in
            let lazy = r.resolve(Lazy<IXA>.self)!
            let provider = r.resolve(Provider<IXA>.self)!
            _ = lazy
            _ = provider
            return IXB()
        }
        child.register(IXC.self) { r in
            IXC(r.resolve(IXB.self)!.id)
        }
        let (lazies, profile) = parent.profilingCreations { () -> (Lazy<IXA>, Provider<IXA>) in
            _ = view.resolve(IXC.self)
            let lazy = view.resolve(Lazy<IXA>.self)!
            let provider = view.resolve(Provider<IXA>.self)!
            _ = lazy.instance
            _ = provider.instance
            return (lazy, provider)
        }
        _ = lazies
        #expect(
            profile.records.map(\.key) == [ixKey(IXC.self), ixKey(IXB.self), ixKey(IXA.self), ixKey(IXA.self)]
        )
        #expect(profile.records.map(\.parent) == [nil, 0, nil, nil])
        ixCheckInvariants(profile)
    }

    @Test("Several threads through a synchronized view: every record's parent is right")
    func severalThreads() throws {
        let container = Container()
        let view = container.synchronize()
        container.register(IXA.self) { r in IXA(r.resolve(IXB.self)!.id) }
        container.register(IXB.self) { _ in
            ixSpin(microseconds: 20)
            return IXB()
        }
        let (_, profile) = container.profilingCreations {
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<50 { _ = view.resolve(IXA.self) }
            }
        }
        #expect(profile.records.count == 800)
        ixCheckInvariants(profile)
        for (index, record) in profile.records.enumerated() {
            if record.key == ixKey(IXA.self) {
                #expect(record.parent == nil)
            } else {
                #expect(record.parent.map { profile.records[$0].key } == ixKey(IXA.self))
                #expect(record.parent.map { profile.records[$0].thread } == record.thread)
                #expect(record.parent == index - 1)
            }
        }
    }

    @Test("Profiling while verify() runs keeps verify's answer and the profile's invariants")
    func profilingVerify() throws {
        let container = Container()
        container.register(IXA.self) { r in IXA(r.resolve(IXB.self)?.id ?? -1) }.inObjectScope(.container)
        container.register(IXB.self) { _ in IXB() }
        let plain = container.verify()
        let (profiled, profile) = container.profilingCreations { container.verify() }
        #expect(plain.count == profiled.count)
        ixCheckInvariants(profile)
        // verify() neither reads nor replaces the cached instances.
        let (_, later) = container.profilingCreations { container.resolve(IXA.self) }
        #expect(later.records.map(\.key) == [ixKey(IXA.self), ixKey(IXB.self)])
    }

    @Test(
        "The Chrome trace of overlapping async creations is valid JSON with events nested per thread",
        .timeLimit(.minutes(1))
    )
    func chromeTraceNestedPerThread() async throws {
        let container = Container()
        for index in 0..<4 {
            container.registerAsync(IXA.self, name: "a\(index)") { _ in
                for _ in 0..<5 {
                    ixSpin(microseconds: 200)
                    try await Task.sleep(for: .milliseconds(2))
                }
                return IXA(index)
            }.inObjectScope(.container)
        }
        let (_, profile) = try await container.profilingCreations {
            try await container.warmUp()
        }
        #expect(profile.records.count == 4)
        let data = Data(profile.chromeTrace.utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let events = try #require(object["traceEvents"] as? [[String: Any]])
        #expect(events.count == 4)
        struct Span {
            let tid: Int
            let start: Double
            let end: Double
        }
        var spans: [Span] = []
        for event in events {
            #expect(event["ph"] as? String == "X")
            let ts = try #require(event["ts"] as? Double)
            let dur = try #require(event["dur"] as? Double)
            let tid = try #require(event["tid"] as? Int)
            #expect(event["pid"] as? Int == 1)
            #expect(event["name"] is String)
            spans.append(Span(tid: tid, start: ts, end: ts + dur))
        }
        // Complete events on one thread must nest or be disjoint, or viewers draw them wrongly.
        var improper = 0
        for i in spans.indices {
            for j in spans.indices where i < j && spans[i].tid == spans[j].tid {
                let a = spans[i]
                let b = spans[j]
                let disjoint = a.end <= b.start || b.end <= a.start
                let nested = (a.start <= b.start && b.end <= a.end) || (b.start <= a.start && a.end <= b.end)
                if !disjoint && !nested { improper += 1 }
            }
        }
        #expect(improper == 0, "\(improper) pairs of events partially overlap on one thread: \(profile.chromeTrace)")
        let gantt = profile.mermaidGantt
        #expect(gantt.hasPrefix("gantt\n"))
        #expect(gantt.components(separatedBy: " :c").count == 5)
    }

    @Test("Renderings of names with syntax characters stay well-formed")
    func renderingsWithOddNames() throws {
        let container = Container()
        container.register(IXA.self, name: "a:b;c#d\ne\"f\\g") { _ in IXA() }
        let (_, profile) = container.profilingCreations { container.resolve(IXA.self, name: "a:b;c#d\ne\"f\\g") }
        #expect(profile.records.count == 1)
        let object = try JSONSerialization.jsonObject(with: Data(profile.chromeTrace.utf8)) as? [String: Any]
        #expect(object != nil)
        let taskLines = profile.mermaidGantt.split(separator: "\n").filter { $0.contains(":c0") }
        #expect(taskLines.count == 1)
        if let line = taskLines.first {
            // Only the separator colon is left in the task line.
            #expect(line.filter { $0 == ":" }.count == 1)
        }
        #expect(profile.table(top: 0).contains("(1 more registration not shown)"))
    }
}

// MARK: - Warm-up

private actor IXWarmer {
    func warm(_ ref: IXRef) async throws(DIError) {
        try await ref.c.warmUp()
    }
}

@Suite("Insight attacks: warmUp overlap", .tags(.concurrency), .hangLimit)
struct InsightAttackWarmUpTests {
    /// A chain A -> B -> C and a diamond D -> (B, E) -> C, all async `.container`.
    private static func chainAndDiamond(_ counts: [String: Counter]) -> Container {
        let container = Container()
        container.registerAsync(IXA.self) { r in
            _ = counts["A"]!.next()
            return IXA((try await r.resolveAsync(IXB.self)).id)
        }.inObjectScope(.container)
        container.registerAsync(IXD.self) { r in
            _ = counts["D"]!.next()
            let b = try await r.resolveAsync(IXB.self)
            let e = try await r.resolveAsync(IXE.self)
            return IXD(b.id + e.id)
        }.inObjectScope(.container)
        container.registerAsync(IXB.self) { r in
            _ = counts["B"]!.next()
            try await Task.sleep(for: .milliseconds(5))
            return IXB((try await r.resolveAsync(IXC.self)).id)
        }.inObjectScope(.container)
        container.registerAsync(IXE.self) { r in
            _ = counts["E"]!.next()
            return IXE((try await r.resolveAsync(IXC.self)).id)
        }.inObjectScope(.container)
        container.registerAsync(IXC.self) { _ in
            _ = counts["C"]!.next()
            try await Task.sleep(for: .milliseconds(5))
            return IXC(7)
        }.inObjectScope(.container)
        return container
    }

    private static func newCounts() -> [String: Counter] {
        ["A": Counter(), "B": Counter(), "C": Counter(), "D": Counter(), "E": Counter()]
    }

    @Test("Chains and diamonds: each created once, from a nonisolated context", .timeLimit(.minutes(1)))
    func chainsNonisolated() async throws {
        let counts = Self.newCounts()
        let ref = IXRef(c: Self.chainAndDiamond(counts))
        let (_, profile) = try await Task.detached {
            try await ref.c.profilingCreations { try await ref.c.warmUp() }
        }.value
        for (name, count) in counts { #expect(count.count == 1, "\(name)") }
        #expect(profile.records.count == 5)
        ixCheckInvariants(profile)
        #expect(ref.c.resolve(IXD.self)?.id == 14)
    }

    @Test("Chains and diamonds: each created once, from the main actor", .timeLimit(.minutes(1)))
    @MainActor
    func chainsMainActor() async throws {
        let counts = Self.newCounts()
        let container = Self.chainAndDiamond(counts)
        try await container.warmUp()
        for (name, count) in counts { #expect(count.count == 1, "\(name)") }
        #expect(container.resolve(IXA.self) != nil)
    }

    @Test("Chains and diamonds: each created once, from an actor", .timeLimit(.minutes(1)))
    func chainsActor() async throws {
        let counts = Self.newCounts()
        let ref = IXRef(c: Self.chainAndDiamond(counts))
        try await IXWarmer().warm(ref)
        for (name, count) in counts { #expect(count.count == 1, "\(name)") }
    }

    @Test("A cycle between two async .container services fails warm-up, without hanging", .timeLimit(.minutes(1)))
    func cycleFails() async throws {
        let container = Container()
        container.registerAsync(IXA.self) { r in IXA((try await r.resolveAsync(IXB.self)).id) }
            .inObjectScope(.container)
        container.registerAsync(IXB.self) { r in IXB((try await r.resolveAsync(IXA.self)).id) }
            .inObjectScope(.container)
        container.registerAsync(IXC.self) { _ in IXC() }.inObjectScope(.container)
        let ref = IXRef(c: container)
        let outcome = await Task.detached { () -> DIError? in
            do throws(DIError) {
                try await ref.c.warmUp()
                return nil
            } catch {
                return error
            }
        }.value
        guard case .circularDependency? = outcome else {
            Issue.record("expected a cycle, got \(String(describing: outcome))")
            return
        }
        #expect(container.resolve(IXA.self) == nil)
        #expect(container.resolve(IXB.self) == nil)
    }

    @Test("A failing async creation fails warm-up; the next warm-up retries it", .timeLimit(.minutes(1)))
    func failingOne() async throws {
        let container = Container()
        let attempts = Counter()
        let others = Counter()
        container.registerAsync(IXA.self) { _ in
            if attempts.next() == 1 { throw IXBoom() }
            return IXA()
        }.inObjectScope(.container)
        container.registerAsync(IXB.self) { _ in
            _ = others.next()
            return IXB()
        }.inObjectScope(.container)
        await #expect(throws: DIError.self) { try await container.warmUp() }
        #expect(container.resolve(IXA.self) == nil)
        try await container.warmUp()
        #expect(attempts.count == 2)
        #expect(others.count == 1)
        #expect(container.resolve(IXA.self) != nil)
    }

    @Test(
        "Factories that resolve synchronously from the captured plain container never run in parallel",
        .timeLimit(.minutes(1))
    )
    func neverInParallel() async throws {
        for _ in 0..<3 {
            let container = Container()
            let ref = IXRef(c: container)
            let detector = IXParallelDetector()
            container.register(IXStore.self) { _ in IXStore() }
            for index in 0..<6 {
                container.registerAsync(IXA.self, name: "p\(index)") { _ in
                    for _ in 0..<4 {
                        detector.enter()
                        _ = ref.c.resolve(IXStore.self)
                        ixSpin(microseconds: 300)
                        detector.leave()
                        try await Task.sleep(for: .milliseconds(1))
                    }
                    return IXA(index)
                }.inObjectScope(.container)
            }
            try await Task.detached { try await ref.c.warmUp() }.value
            #expect(detector.overlapCount == 0)
        }
    }

    @Test("Warm-up while other tasks resolve the same services through a synchronized view", .timeLimit(.minutes(1)))
    func warmUpWithViewResolves() async throws {
        let counts = Self.newCounts()
        let container = Self.chainAndDiamond(counts)
        let view = container.synchronize()
        let ref = IXRef(c: container)
        let ids = await withTaskGroup(of: ObjectIdentifier?.self) { group -> Set<ObjectIdentifier?> in
            for _ in 0..<8 {
                group.addTask { (try? await view.resolveAsync(IXC.self)).map(ObjectIdentifier.init) }
            }
            group.addTask {
                try? await ref.c.warmUp()
                return view.resolve(IXC.self).map(ObjectIdentifier.init)
            }
            var ids: Set<ObjectIdentifier?> = []
            for await id in group { ids.insert(id) }
            return ids
        }
        #expect(ids.count == 1)
        #expect(!ids.contains(nil))
        for (name, count) in counts { #expect(count.count == 1, "\(name)") }
    }

    @Test("Cancelling the task that calls warmUp() neither hangs nor creates anything twice", .timeLimit(.minutes(1)))
    func cancellation() async throws {
        let container = Container()
        let ref = IXRef(c: container)
        let gate = Gate()
        let started = Counter()
        let counts = [Counter(), Counter()]
        container.registerAsync(IXA.self) { _ in
            _ = counts[0].next()
            _ = started.next()
            await gate.wait()
            return IXA()
        }.inObjectScope(.container)
        container.registerAsync(IXB.self) { _ in
            _ = counts[1].next()
            _ = started.next()
            await gate.wait()
            return IXB()
        }.inObjectScope(.container)
        let task = Task.detached { try await ref.c.warmUp() }
        await ixWaitUntil { started.count == 2 }
        task.cancel()
        try? await Task.sleep(for: .milliseconds(20))
        gate.open()
        _ = await task.result
        try await container.warmUp()
        #expect(counts[0].count == 1)
        #expect(counts[1].count == 1)
        #expect(container.resolve(IXA.self) != nil)
    }

    @Test("warmUp() inside a transient async factory creates each .container once", .timeLimit(.minutes(1)))
    func warmUpInsideFactory() async throws {
        let counts = Self.newCounts()
        let container = Self.chainAndDiamond(counts)
        let ref = IXRef(c: container)
        container.registerAsync(IXStore.self) { _ in
            try await ref.c.warmUp()
            return IXStore()
        }
        _ = try await container.resolveAsync(IXStore.self)
        for (name, count) in counts { #expect(count.count == 1, "\(name)") }
    }

    @Test("warmUp() inside a .container factory it would create is a cycle, not a hang", .timeLimit(.minutes(1)))
    func warmUpInsideOwnFactory() async throws {
        let container = Container()
        let ref = IXRef(c: container)
        container.registerAsync(IXA.self) { _ in
            try await ref.c.warmUp()
            return IXA()
        }.inObjectScope(.container)
        do {
            _ = try await container.resolveAsync(IXA.self)
            Issue.record("expected a cycle")
        } catch {
            guard case .circularDependency = error else {
                Issue.record("expected a cycle, got \(error)")
                return
            }
        }
    }
}

// MARK: - Captive dependencies

@Suite("Insight attacks: captive dependencies", .tags(.concurrency), .hangLimit)
struct InsightAttackCaptiveTests {
    private static func classic(validating: Bool) -> (Container, Container, Counter) {
        let app = Container()
        let made = Counter()
        app.register(IXSession.self) { _ in IXSession("guest") }
        app.register(IXCart.self) { r in
            _ = made.next()
            return IXCart(r.resolve(IXSession.self))
        }.inObjectScope(.container)
        let request = Container(parent: app)
        request.register(IXSession.self) { _ in IXSession("user") }
        app.validatesScopes = validating
        return (app, request, made)
    }

    @Test("The classic captive fails with its key, captured key and path; nothing of the call is kept")
    func classicCaptive() throws {
        let (app, request, made) = Self.classic(validating: true)
        let store = Counter()
        app.register(IXStore.self) { _ in
            _ = store.next()
            return IXStore()
        }.inObjectScope(.container)
        app.register(IXCart.self) { r in
            _ = made.next()
            _ = r.resolve(IXStore.self)
            return IXCart(r.resolve(IXSession.self))
        }.inObjectScope(.container)
        #expect(request.validatesScopes)
        #expect(
            throws: DIError.captiveDependency(
                key: ixKey(IXCart.self),
                captured: ixKey(IXSession.self),
                path: [ixKey(IXCart.self), ixKey(IXSession.self)]
            )
        ) {
            try request.resolveThrows(IXCart.self)
        }
        // Nothing of that call is kept: neither the cart nor the store it created.
        #expect(app.resolve(IXCart.self)?.session?.who == "guest")
        #expect(made.count == 2)
        #expect(store.count == 2)
    }

    @Test("Off: behaves as Swinject, the captive is kept and shared")
    func offKeepsCaptive() throws {
        let (app, request, _) = Self.classic(validating: false)
        let cart = try request.resolveThrows(IXCart.self)
        #expect(cart.session?.who == "user")
        #expect(app.resolve(IXCart.self) === cart)
    }

    @Test("A cached instance of the child's override is still captured")
    func cachedChildInstance() throws {
        let (app, request, _) = Self.classic(validating: true)
        request.register(IXSession.self) { _ in IXSession("user") }.inObjectScope(.container)
        _ = request.resolve(IXSession.self)
        #expect(throws: DIError.self) { try request.resolveThrows(IXCart.self) }
        _ = app
    }

    @Test("Transitive through a parent's transient: the path goes through it")
    func transitiveThroughTransient() throws {
        let app = Container()
        app.register(IXSession.self) { _ in IXSession("guest") }
        app.register(IXMid.self) { r in IXMid(r.resolve(IXSession.self)) }
        app.register(IXCart.self) { r in IXCart(r.resolve(IXMid.self)?.session) }.inObjectScope(.container)
        let request = Container(parent: app)
        request.register(IXSession.self) { _ in IXSession("user") }
        app.validatesScopes = true
        #expect(
            throws: DIError.captiveDependency(
                key: ixKey(IXCart.self),
                captured: ixKey(IXSession.self),
                path: [ixKey(IXCart.self), ixKey(IXMid.self), ixKey(IXSession.self)]
            )
        ) {
            try request.resolveThrows(IXCart.self)
        }
    }

    @Test("A multiton with arguments is a holder too")
    func multitonWithArguments() throws {
        let app = Container()
        app.register(IXSession.self) { _ in IXSession("guest") }
        app.register(IXCart.self) { (r, _: Int) in IXCart(r.resolve(IXSession.self)) }.inObjectScope(.multiton)
        let request = Container(parent: app)
        request.register(IXSession.self) { _ in IXSession("user") }
        app.validatesScopes = true
        #expect(throws: DIError.self) { try request.resolveThrows(IXCart.self, argument: 1) }
        #expect(app.resolve(IXCart.self, argument: 1)?.session?.who == "guest")
    }

    @Test("An async .container factory capturing the child's override fails")
    func asyncCaptive() async throws {
        let app = Container()
        app.register(IXSession.self) { _ in IXSession("guest") }
        app.registerAsync(IXCart.self) { r in IXCart(try await r.resolveAsync(IXSession.self)) }
            .inObjectScope(.container)
        let request = Container(parent: app)
        request.register(IXSession.self) { _ in IXSession("user") }
        app.validatesScopes = true
        do {
            _ = try await request.resolveAsync(IXCart.self)
            Issue.record("expected a captive dependency")
        } catch {
            guard case .captiveDependency(let key, let captured, _) = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(key == ixKey(IXCart.self))
            #expect(captured == ixKey(IXSession.self))
        }
        #expect(try await app.resolveAsync(IXCart.self).session?.who == "guest")
    }

    @Test("An async .container factory capturing a child's async override fails")
    func asyncCaptiveOfAsync() async throws {
        let app = Container()
        app.registerAsync(IXSession.self) { _ in IXSession("guest") }
        app.registerAsync(IXCart.self) { r in IXCart(try await r.resolveAsync(IXSession.self)) }
            .inObjectScope(.container)
        let request = Container(parent: app)
        request.registerAsync(IXSession.self) { _ in IXSession("user") }
        app.validatesScopes = true
        await #expect(throws: DIError.self) { _ = try await request.resolveAsync(IXCart.self) }
        #expect(try await app.resolveAsync(IXCart.self).session?.who == "guest")
    }

    @Test("A grandchild's resolve that captures the middle child's override fails")
    func grandchild() throws {
        let (app, request, _) = Self.classic(validating: true)
        let grandchild = Container(parent: request)
        #expect(throws: DIError.self) { try grandchild.resolveThrows(IXCart.self) }
        #expect(app.resolve(IXCart.self)?.session?.who == "guest")
    }

    @Test("No false positives: own singletons, a parent's transient or graph service, a parent's singleton")
    func noFalsePositives() throws {
        let app = Container()
        app.register(IXSession.self) { _ in IXSession("guest") }
        app.register(IXMid.self) { r in IXMid(r.resolve(IXSession.self)) }
        app.register(IXStore.self) { _ in IXStore() }.inObjectScope(.container)
        app.register(IXA.self) { r in
            _ = r.resolve(IXStore.self)
            return IXA()
        }.inObjectScope(.container)
        let request = Container(parent: app)
        request.register(IXSession.self) { _ in IXSession("user") }
        request.register(IXCart.self) { r in IXCart(r.resolve(IXSession.self)) }.inObjectScope(.container)
        request.register(IXB.self) { r in
            _ = r.resolve(IXStore.self)
            _ = r.resolve(IXA.self)
            return IXB()
        }.inObjectScope(.container)
        app.validatesScopes = true
        #expect(try request.resolveThrows(IXCart.self).session?.who == "user")
        #expect(try request.resolveThrows(IXMid.self).session?.who == "user")
        #expect(try request.resolveThrows(IXB.self) === request.resolve(IXB.self))
        let grandchild = Container(parent: request)
        #expect(try grandchild.resolveThrows(IXCart.self) === request.resolve(IXCart.self))
        #expect(try grandchild.resolveThrows(IXA.self) === app.resolve(IXA.self))
        // Siblings: a sibling without an override shares the parent's instance.
        let sibling = Container(parent: app)
        #expect(try sibling.resolveThrows(IXA.self) === app.resolve(IXA.self))
        #expect(request.verify().isEmpty)
        #expect(grandchild.verify().isEmpty)
    }

    @Test("No false positive through forwarded keys that the child does not override")
    func forwardedNoFalsePositive() throws {
        let app = Container()
        app.register(IXImpl.self) { _ in IXImpl() }.implements(IXProto.self)
        app.register(IXProtoCart.self) { r in IXProtoCart(r.resolve(IXProto.self)) }.inObjectScope(.container)
        let request = Container(parent: app)
        request.register(IXSession.self) { _ in IXSession("user") }
        app.validatesScopes = true
        #expect(try request.resolveThrows(IXProtoCart.self).proto != nil)
    }

    @Test("A child's forwarded override is captured")
    func forwardedCaptive() throws {
        let app = Container()
        app.register(IXImpl.self) { _ in IXImpl() }.implements(IXProto.self)
        app.register(IXProtoCart.self) { r in IXProtoCart(r.resolve(IXProto.self)) }.inObjectScope(.container)
        let request = Container(parent: app)
        request.register(IXImpl.self) { _ in IXImpl() }.implements(IXProto.self)
        app.validatesScopes = true
        do {
            _ = try request.resolveThrows(IXProtoCart.self)
            Issue.record("expected a captive dependency")
        } catch {
            guard case .captiveDependency(let key, _, _) = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(key == ixKey(IXProtoCart.self))
        }
    }

    @Test("No false positive: a Lazy of a parent-only service, resolved through the child and used later")
    func lazyNoFalsePositive() throws {
        let app = Container()
        app.register(IXSession.self) { _ in IXSession("guest") }
        app.register(IXLazyCart.self) { r in IXLazyCart(r.resolve(Lazy<IXSession>.self)) }.inObjectScope(.container)
        let request = Container(parent: app)
        request.register(IXStore.self) { _ in IXStore() }
        app.validatesScopes = true
        let cart = try request.resolveThrows(IXLazyCart.self)
        #expect(cart.session?.instance.who == "guest")
        #expect(try app.resolveThrows(IXLazyCart.self) === cart)
    }

    @Test("verify() reports the captive through the child, whether validation is on or off")
    func verifyReports() throws {
        for validating in [false, true] {
            let (app, request, made) = Self.classic(validating: validating)
            let problems = request.verify()
            #expect(
                problems.contains {
                    if case .captiveDependency(let key, let captured, _) = $0 {
                        return key == ixKey(IXCart.self) && captured == ixKey(IXSession.self)
                    }
                    return false
                },
                "validating: \(validating), got \(problems)"
            )
            #expect(app.verify().isEmpty)
            // verify() keeps nothing.
            _ = app.resolve(IXCart.self)
            #expect(made.count >= 1)
        }
    }
}

// MARK: - Drops while a creation is in flight

@Suite("Insight attacks: drops during creations", .tags(.concurrency), .hangLimit)
struct InsightAttackDropTests {
    @Test(
        "resetObjectScope during an async factory: the newer instance wins, the older is disposed once",
        .timeLimit(.minutes(1))
    )
    func resetDuringAsync() async throws {
        let container = Container()
        let ref = IXRef(c: container)
        let log = EventLog()
        let calls = Counter()
        let gate = Gate()
        container.registerAsync(IXA.self) { _ in
            let n = calls.next()
            if n == 1 { await gate.wait() }
            return IXA(n)
        }.inObjectScope(.container).onDispose { log.record("d\($0.id)") }
        let first = Task.detached { try await ref.c.resolveAsync(IXA.self) }
        await ixWaitUntil { calls.count == 1 }
        container.resetObjectScope(.container)
        let second = try await Task.detached { try await ref.c.resolveAsync(IXA.self) }.value
        #expect(second.id == 2)
        gate.open()
        let older = try await first.value
        #expect(older.id == 1)
        #expect(container.resolve(IXA.self) === second)
        #expect(log.all == ["d1"])
        try container.dispose()
        #expect(log.all == ["d1", "d2"])
    }

    @Test("A sync factory that drops its own scope: its instance is not kept and disposed once")
    func syncFactoryDropsOwnScope() throws {
        let container = Container()
        let log = EventLog()
        let calls = Counter()
        container.register(IXA.self) { _ in
            let n = calls.next()
            if n == 1 { container.resetObjectScope(.container) }
            return IXA(n)
        }.inObjectScope(.container).onDispose { log.record("d\($0.id)") }
        let first = container.resolve(IXA.self)
        #expect(first?.id == 1)
        #expect(log.all == ["d1"])
        let second = container.resolve(IXA.self)
        #expect(second?.id == 2)
        #expect(container.resolve(IXA.self) === second)
        try container.dispose()
        #expect(log.all == ["d1", "d2"])
    }

    @Test("A back-reference from initCompleted whose scope is dropped during the factory")
    func backReferenceDropped() throws {
        let container = Container()
        let log = EventLog()
        let calls = Counter()
        container.register(IXBackParent.self) { _ in
            let n = calls.next()
            if n == 1 { container.resetObjectScope(.container) }
            return IXBackParent(n)
        }.inObjectScope(.container)
            .initCompleted { r, parent in parent.child = r.resolve(IXBackChild.self) }
            .onDispose { log.record("d\($0.id)") }
        container.register(IXBackChild.self) { r in IXBackChild(r.resolve(IXBackParent.self)) }
        let first = try #require(container.resolve(IXBackParent.self))
        #expect(first.child?.parent === first)
        #expect(log.all == ["d1"])
        #expect(calls.count == 1)
        let second = container.resolve(IXBackParent.self)
        #expect(second !== first)
        #expect(second?.child?.parent === second)
        #expect(log.all == ["d1"])
    }

    @Test(
        "dispose() while an async factory runs: the instance is not kept, its handler runs once",
        .timeLimit(.minutes(1))
    )
    func disposeDuringAsync() async throws {
        let container = Container()
        let ref = IXRef(c: container)
        let log = EventLog()
        let calls = Counter()
        let gate = Gate()
        container.registerAsync(IXA.self) { _ in
            let n = calls.next()
            if n == 1 { await gate.wait() }
            return IXA(n)
        }.inObjectScope(.container).onDispose { log.record("d\($0.id)") }
        let first = Task.detached { try await ref.c.resolveAsync(IXA.self) }
        await ixWaitUntil { calls.count == 1 }
        try container.dispose()
        gate.open()
        _ = try await first.value
        #expect(log.all == ["d1"])
        let next = try await container.resolveAsync(IXA.self)
        #expect(next.id == 2)
        try container.dispose()
        #expect(log.all == ["d1", "d2"])
    }

    @Test(
        "disposeAsync() waits for the creation in flight and disposes it once, async handler included",
        .timeLimit(.minutes(1))
    )
    func disposeAsyncDuringAsync() async throws {
        let container = Container()
        let ref = IXRef(c: container)
        let log = EventLog()
        let calls = Counter()
        let gate = Gate()
        container.registerAsync(IXA.self) { _ in
            let n = calls.next()
            if n == 1 { await gate.wait() }
            return IXA(n)
        }.inObjectScope(.container)
            .onDispose { log.record("d\($0.id)") }
            .onDisposeAsync { log.record("ad\($0.id)") }
        let first = Task.detached { try await ref.c.resolveAsync(IXA.self) }
        await ixWaitUntil { calls.count == 1 }
        let disposals = (0..<2).map { _ in Task.detached { try await ref.c.disposeAsync() } }
        try? await Task.sleep(for: .milliseconds(20))
        gate.open()
        _ = try await first.value
        for disposal in disposals { try await disposal.value }
        #expect(log.all.sorted() == ["ad1", "d1"])
        #expect(try await container.resolveAsync(IXA.self).id == 2)
    }

    @Test(
        "Re-registration while an async factory runs: the old instance is never stored, disposed once",
        .timeLimit(.minutes(1))
    )
    func reRegistrationDuringAsync() async throws {
        let container = Container()
        let ref = IXRef(c: container)
        let log = EventLog()
        let gate = Gate()
        let started = Counter()
        container.registerAsync(IXA.self) { _ in
            _ = started.next()
            await gate.wait()
            return IXA(1)
        }.inObjectScope(.container).onDispose { log.record("d\($0.id)") }
        let first = Task.detached { try await ref.c.resolveAsync(IXA.self) }
        await ixWaitUntil { started.count == 1 }
        container.registerAsync(IXA.self) { _ in IXA(2) }.inObjectScope(.container)
            .onDispose { log.record("new\($0.id)") }
        gate.open()
        _ = try await first.value
        #expect(log.all == ["d1"])
        #expect(try await container.resolveAsync(IXA.self).id == 2)
        #expect(container.resolve(IXA.self)?.id == 2)
    }

    @Test("removeAll() while an async factory runs: nothing is kept, the handler runs once", .timeLimit(.minutes(1)))
    func removeAllDuringAsync() async throws {
        let container = Container()
        let ref = IXRef(c: container)
        let log = EventLog()
        let gate = Gate()
        let started = Counter()
        container.registerAsync(IXA.self) { _ in
            _ = started.next()
            await gate.wait()
            return IXA(1)
        }.inObjectScope(.container).onDispose { log.record("d\($0.id)") }
        let first = Task.detached { try await ref.c.resolveAsync(IXA.self) }
        await ixWaitUntil { started.count == 1 }
        container.removeAll()
        gate.open()
        _ = try? await first.value
        #expect(log.all == ["d1"])
        #expect(container.resolve(IXA.self) == nil)
        container.registerAsync(IXA.self) { _ in IXA(3) }.inObjectScope(.container)
        #expect(try await container.resolveAsync(IXA.self).id == 3)
    }

    @Test("A .multiton creation in flight when its scope is reset is not kept", .timeLimit(.minutes(1)))
    func multitonDuringAsync() async throws {
        let container = Container()
        let ref = IXRef(c: container)
        let log = EventLog()
        let calls = Counter()
        let gate = Gate()
        container.registerAsync(IXA.self) { (_, key: Int) in
            let n = calls.next()
            if n == 1 { await gate.wait() }
            return IXA(n * 100 + key)
        }.inObjectScope(.multiton).onDispose { log.record("d\($0.id)") }
        let first = Task.detached { try await ref.c.resolveAsync(IXA.self, argument: 7) }
        await ixWaitUntil { calls.count == 1 }
        container.resetObjectScope(.multiton)
        let second = try await container.resolveAsync(IXA.self, argument: 7)
        gate.open()
        _ = try await first.value
        #expect(log.all == ["d107"])
        #expect(try await container.resolveAsync(IXA.self, argument: 7) === second)
    }

    @Test(
        "Custom and .weak scopes: a creation whose scope is dropped while it runs keeps nothing",
        .timeLimit(.minutes(1))
    )
    func customAndWeakDuringAsync() async throws {
        let custom = ObjectScope(storageFactory: PermanentStorage.init, description: "ix-permanent")
        for scope in [custom, ObjectScope.weak] {
            let container = Container()
            let ref = IXRef(c: container)
            let calls = Counter()
            let gate = Gate()
            container.registerAsync(IXA.self) { _ in
                let n = calls.next()
                if n == 1 { await gate.wait() }
                return IXA(n)
            }.inObjectScope(scope)
            let first = Task.detached { try await ref.c.resolveAsync(IXA.self) }
            await ixWaitUntil { calls.count == 1 }
            container.resetObjectScope(scope)
            gate.open()
            let older = try await first.value
            let next = try await container.resolveAsync(IXA.self)
            #expect(next !== older, "\(scope)")
            #expect(next.id == 2, "\(scope)")
        }
    }

    @Test("Re-registering its own key inside a sync factory: the old instance is not stored in the new one")
    func reRegisterInsideSyncFactory() throws {
        let container = Container()
        let log = EventLog()
        container.register(IXA.self) { _ in
            container.register(IXA.self) { _ in IXA(2) }.inObjectScope(.container)
            return IXA(1)
        }.inObjectScope(.container).onDispose { log.record("d\($0.id)") }
        #expect(container.resolve(IXA.self)?.id == 1)
        #expect(log.all == ["d1"])
        #expect(container.resolve(IXA.self)?.id == 2)
    }
}

// MARK: - Second batch

@Suite("Insight attacks: second batch", .tags(.concurrency), .hangLimit)
struct InsightAttackSecondBatchTests {
    @Test(
        "An async creation begun under an earlier profile resolving synchronously under a later one does not trap",
        .timeLimit(.minutes(1))
    )
    func staleParentAcrossProfiles() async {
        await #expect(processExitsWith: .success) {
            let container = Container()
            let ref = IXRef(c: container)
            let gate = Gate()
            let started = Counter()
            let taskSlot = IXSlot<Task<IXA?, Never>>()
            container.register(IXB.self) { _ in IXB() }
            container.register(IXC.self) { _ in IXC() }
            container.registerAsync(IXA.self) { r in
                _ = started.next()
                await gate.wait()
                _ = r.resolve(IXB.self)
                return IXA()
            }
            // The first profile records three IXC, then IXA (record 3), whose creation outlives its body.
            _ = await container.profilingCreations {
                _ = ref.c.resolve(IXC.self)
                _ = ref.c.resolve(IXC.self)
                _ = ref.c.resolve(IXC.self)
                taskSlot.set(Task { try? await ref.c.resolveAsync(IXA.self) })
                await ixWaitUntil { started.count == 1 }
            }
            // The second profile sees IXA's factory resolve IXB.
            let (_, second) = await container.profilingCreations {
                gate.open()
                _ = await taskSlot.value?.value
            }
            let parents = second.records.map(\.parent)
            if parents.contains(where: { $0 != nil && $0! >= second.records.count }) {
                exit(3)
            }
        }
    }

    @Test("A main-actor factory resolved on the main actor inside a sync factory is recorded inside it")
    @MainActor
    func mainActorInPlace() throws {
        let container = Container()
        container.register(IXB.self, mainActorFactory: { _ in IXB() })
        container.register(IXA.self) { r in IXA(r.resolve(IXB.self)?.id ?? -1) }
        let (made, profile) = container.profilingCreations { container.resolve(IXA.self) }
        #expect(made?.id == 0)
        #expect(profile.records.map(\.key) == [ixKey(IXA.self), ixKey(IXB.self)])
        #expect(profile.records.map(\.parent) == [nil, 0])
    }

    @Test("Captive through initCompleted is reported")
    func captiveThroughInitCompleted() throws {
        let app = Container()
        app.register(IXSession.self) { _ in IXSession("guest") }
        app.register(IXBackParent.self) { _ in IXBackParent(1) }.inObjectScope(.container)
            .initCompleted { r, _ in _ = r.resolve(IXSession.self) }
        let request = Container(parent: app)
        request.register(IXSession.self) { _ in IXSession("user") }
        app.validatesScopes = true
        #expect(throws: DIError.self) { try request.resolveThrows(IXBackParent.self) }
    }

    @Test("Captive through resolveAll is reported")
    func captiveThroughResolveAll() throws {
        let app = Container()
        app.register(IXSession.self) { _ in IXSession("guest") }
        app.register(IXCart.self) { r in IXCart(r.resolveAll(IXSession.self).first) }.inObjectScope(.container)
        let request = Container(parent: app)
        request.register(IXSession.self) { _ in IXSession("user") }
        app.validatesScopes = true
        #expect(throws: DIError.self) { try request.resolveThrows(IXCart.self) }
        #expect(app.resolve(IXCart.self)?.session?.who == "guest")
    }

    @Test("Captive through a Provider used inside the factory is reported")
    func captiveThroughProvider() throws {
        let app = Container()
        app.register(IXSession.self) { _ in IXSession("guest") }
        app.register(IXCart.self) { r in IXCart(r.resolve(Provider<IXSession>.self)?.instance) }
            .inObjectScope(.container)
        let request = Container(parent: app)
        request.register(IXSession.self) { _ in IXSession("user") }
        app.validatesScopes = true
        #expect(throws: DIError.self) { try request.resolveThrows(IXCart.self) }
    }

    @Test("A multiton without arguments is a holder; a parent's .weak or .graph service is not")
    func multitonAndWeak() throws {
        let app = Container()
        app.register(IXSession.self) { _ in IXSession("guest") }
        app.register(IXCart.self) { r in IXCart(r.resolve(IXSession.self)) }.inObjectScope(.multiton)
        app.register(IXMid.self) { r in IXMid(r.resolve(IXSession.self)) }.inObjectScope(.weak)
        let request = Container(parent: app)
        request.register(IXSession.self) { _ in IXSession("user") }
        app.validatesScopes = true
        #expect(throws: DIError.self) { try request.resolveThrows(IXCart.self) }
        #expect(try request.resolveThrows(IXMid.self).session?.who == "user")
    }

    @Test("After a failed validating resolve, the child's own .container instance made in that call is not kept")
    func childInstanceOfFailedCallNotKept() throws {
        let app = Container()
        app.register(IXSession.self) { _ in IXSession("guest") }
        app.register(IXCart.self) { r in IXCart(r.resolve(IXSession.self)) }.inObjectScope(.container)
        let request = Container(parent: app)
        let made = Counter()
        request.register(IXSession.self) { _ in
            _ = made.next()
            return IXSession("user")
        }.inObjectScope(.container)
        app.validatesScopes = true
        #expect(throws: DIError.self) { try request.resolveThrows(IXCart.self) }
        _ = request.resolve(IXSession.self)
        #expect(made.count == 2)
    }

    @Test("dispose() inside a sync factory of the same container: each handler runs once")
    func disposeInsideFactory() throws {
        let container = Container()
        let log = EventLog()
        container.register(IXB.self) { _ in IXB(1) }.inObjectScope(.container).onDispose { log.record("b\($0.id)") }
        container.register(IXA.self) { r in
            _ = r.resolve(IXB.self)
            try? container.dispose()
            return IXA(1)
        }.inObjectScope(.container).onDispose { log.record("a\($0.id)") }
        let a = container.resolve(IXA.self)
        #expect(a != nil)
        #expect(log.all.sorted() == ["a1", "b1"])
        try container.dispose()
        #expect(log.all.sorted() == ["a1", "b1"])
    }

    @Test("resetObjectScope(.multiton) inside a sync multiton factory: not kept, disposed once")
    func multitonSyncDrop() throws {
        let container = Container()
        let log = EventLog()
        let calls = Counter()
        container.register(IXA.self) { (_, key: Int) in
            let n = calls.next()
            if n == 1 { container.resetObjectScope(.multiton) }
            return IXA(n * 100 + key)
        }.inObjectScope(.multiton).onDispose { log.record("d\($0.id)") }
        #expect(container.resolve(IXA.self, argument: 1)?.id == 101)
        #expect(log.all == ["d101"])
        let second = container.resolve(IXA.self, argument: 1)
        #expect(second?.id == 201)
        #expect(container.resolve(IXA.self, argument: 1) === second)
    }

    @Test(
        "Many concurrent resets during async creations through a view: each handler runs at most once",
        .timeLimit(.minutes(1))
    )
    func concurrentResets() async throws {
        let container = Container()
        let view = container.synchronize()
        let disposed = EventLog()
        let calls = Counter()
        container.registerAsync(IXA.self) { _ in
            let n = calls.next()
            try await Task.sleep(for: .microseconds(200))
            return IXA(n)
        }.inObjectScope(.container).onDispose { disposed.record("\($0.id)") }
        let ref = IXRef(c: container)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<60 {
                group.addTask {
                    if index % 3 == 0 {
                        view.withContainer { $0.resetObjectScope(.container) }
                    } else {
                        _ = try? await view.resolveAsync(IXA.self)
                    }
                }
            }
        }
        _ = ref
        let all = disposed.all
        #expect(Set(all).count == all.count, "a handler ran twice: \(all)")
        let kept = container.resolve(IXA.self)
        if let kept {
            #expect(!all.contains("\(kept.id)"), "the kept instance was disposed")
        }
        try container.dispose()
        #expect(Set(disposed.all).count == disposed.all.count)
        #expect(disposed.all.count == calls.count, "every instance made is disposed exactly once")
    }
}

@Suite("Insight attacks: fronts")
struct InsightAttackFrontTests {
    @Test("Creations through a DIActor front are recorded, and nothing after the body")
    func throughDIActor() async throws {
        let actor = DIActor()
        await actor.register(IXA.self) { IXA(1) }
        await actor.registerSharedActor(IXB.self) { IXB(2) }
        let container = actor.container
        let (_, profile) = await container.profilingCreations {
            _ = await actor.resolve(IXA.self)
            _ = await actor.resolve(IXB.self)
            _ = await actor.resolve(IXB.self)
        }
        _ = await actor.resolve(IXA.self)
        #expect(profile.records.map(\.key.serviceType).map { "\($0)" }.count == 2)
        #expect(profile.records.map(\.parent) == [nil, nil])
        #expect(container.profiler == nil)
    }
}

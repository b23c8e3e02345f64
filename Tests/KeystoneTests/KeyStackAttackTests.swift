import Dispatch
import Foundation
import Testing

@testable import Keystone

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Attacks on three changes:
// 1. `.multiton` keys that do not equal themselves (Double NaN, irreflexive `==`) are kept under a key of
//    their own identity (`MultitonKey.storable`, `IdentityKeyBox`, `FlightKey`).
// 2. A miss collects its near misses recursively over the parent chain (`collectCandidates`).
// 3. `StackSpace.isLow()` ignores a local outside the thread's stack (Address Sanitizer's fake stack).
//
// Every irreflexive key shape is checked against a model (`AnyHashable`'s equality, where a stored key is
// found again only if it equals itself), and every single creation under such a key against the same
// creation under a fresh ordinary key: both must keep, drop, number and dispose of their instance alike.

// MARK: - Fixtures

private final class KSAMade: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

/// Serial numbers, disposals and deinits, from any thread.
private final class KSACounts: @unchecked Sendable {
    // @unchecked: every field is used under `lock`.
    private let lock = NSLock()
    private var serial = 0
    private var disposedBySerial: [Int: Int] = [:]
    private var order: [Int] = []

    func next() -> Int {
        lock.withLock {
            serial += 1
            return serial
        }
    }

    var made: Int { lock.withLock { serial } }

    func noteDisposed(_ serial: Int) {
        lock.withLock {
            disposedBySerial[serial, default: 0] += 1
            order.append(serial)
        }
    }

    func disposed(_ serial: Int) -> Int { lock.withLock { disposedBySerial[serial] ?? 0 } }
    var disposals: [Int] { lock.withLock { order } }
    var totalDisposals: Int { lock.withLock { order.count } }
}

/// A key whose `==` is never true, not even for itself.
private struct KSANever: Hashable, Sendable {
    static func == (lhs: KSANever, rhs: KSANever) -> Bool { false }
    func hash(into hasher: inout Hasher) { hasher.combine(1) }
}

/// A struct key with a synthesized `==` over a `Double`: irreflexive when it holds a NaN.
private struct KSAPoint: Hashable, Sendable {
    var x: Double
    var y: Int
}

/// A key whose `==` is reflexive or not as a global switch says: the switch flips while a creation runs.
private struct KSAFlaky: Hashable, Sendable {
    nonisolated(unsafe) static var equalsItself = true
    let value: Int
    static func == (lhs: KSAFlaky, rhs: KSAFlaky) -> Bool { equalsItself && lhs.value == rhs.value }
    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

/// A link of a chain built by recursion over an `Int` argument.
private final class KSANode {
    let depth: Int
    let next: KSANode?
    init(depth: Int, next: KSANode?) {
        self.depth = depth
        self.next = next
    }
}

private struct KSAFailure: Error {}

private protocol KSAService {}
private struct KSAThing: KSAService {}
private struct KSAOther {}
private struct KSAAbsent {}

/// Weak references to instances, to tell which were released.
private final class KSAWeakSet {
    private var references: [() -> AnyObject?] = []
    func add(_ object: AnyObject) {
        references.append { [weak object] in object }
    }
    var alive: Int { references.reduce(0) { $0 + ($1() == nil ? 0 : 1) } }
}

/// Whether this process runs under Address or Thread Sanitizer: their instrumented frames (and ASan's fake
/// stack) change how much of a thread's stack a resolve takes.
private let ksaSanitized: Bool = {
    let handle = dlopen(nil, RTLD_NOW)
    defer { if let handle { dlclose(handle) } }
    return dlsym(handle, "__asan_init") != nil || dlsym(handle, "__tsan_init") != nil
}()

private func ksaAnyHashable(_ value: any Hashable) -> AnyHashable { AnyHashable(value) }

private final class KSAThreadBox<T>: @unchecked Sendable {
    // @unchecked: written by one thread, read by another after a semaphore.
    var body: (() throws -> T)?
    var result: Result<T, any Error>?
}

/// Runs `body` on a new thread with `stackSize` bytes of stack, and waits for it.
private func ksaOnThread<T>(stackSize: Int, _ body: @escaping () throws -> T) throws -> T {
    let box = KSAThreadBox<T>()
    box.body = body
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.result = Result { try box.body!() }
        box.body = nil
        done.signal()
    }
    thread.stackSize = stackSize
    thread.start()
    done.wait()
    return try box.result!.get()
}

// MARK: - Irreflexive keys against the model

@Suite("KeyStackAttack: .multiton keys that do not equal themselves", .tags(.engine))
struct KeyStackAttackMultitonTests {
    /// Registers a `.multiton` `KSAMade` through `register`, resolves `values` in order through `resolve`,
    /// and checks each answer against the model: the instance of the earliest earlier value whose model
    /// equals this one's and equals itself (a stored key is found again only then), else a new one. Then
    /// `dispose()` must end each instance once, newest first, and release it.
    private func check<Value>(
        _ values: [Value],
        model: (Value) -> AnyHashable,
        register: (Container, KSACounts) -> Void,
        resolve: (Container, Value) throws -> KSAMade,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let container = Container()
        let counts = KSACounts()
        register(container, counts)
        var answers: [KSAMade] = []
        var created: [Int] = []
        let weak = KSAWeakSet()
        for (index, value) in values.enumerated() {
            let made = try resolve(container, value)
            let expected = values[..<index].indices.first { earlier in
                model(values[earlier]) == model(value) && model(values[earlier]) == model(values[earlier])
            }
            if let expected {
                #expect(
                    made === answers[expected],
                    "value \(index) should hit value \(expected)",
                    sourceLocation: sourceLocation
                )
            } else {
                #expect(
                    !answers.contains { $0 === made },
                    "value \(index) should make a new instance",
                    sourceLocation: sourceLocation
                )
            }
            if !created.contains(made.serial) {
                created.append(made.serial)
                weak.add(made)
            }
            answers.append(made)
        }
        answers.removeAll()
        try container.dispose()
        #expect(counts.disposals == created.reversed(), sourceLocation: sourceLocation)
        #expect(weak.alive == 0, sourceLocation: sourceLocation)
    }

    @Test("Double, Float and Optional<Double> NaNs (any payload) never hit; ordinary values do")
    func floatingPointKeys() throws {
        let quiet = Double.nan
        let payload = Double(nan: 0x5, signaling: false)
        let signaling = Double.signalingNaN
        try check(
            [1.0, quiet, 1.0, quiet, -0.0, 0.0, payload, payload, signaling, -quiet, 1.0, quiet],
            model: { AnyHashable($0) },
            register: { container, counts in
                container.register(KSAMade.self) { (_, _: Double) in KSAMade(serial: counts.next()) }
                    .inObjectScope(.multiton).onDispose { counts.noteDisposed($0.serial) }
            },
            resolve: { try $0.resolveThrows(KSAMade.self, argument: $1) }
        )
        try check(
            [Float.nan, 1, .nan, 1, -Float.nan],
            model: { AnyHashable($0) },
            register: { container, counts in
                container.register(KSAMade.self) { (_, _: Float) in KSAMade(serial: counts.next()) }
                    .inObjectScope(.multiton).onDispose { counts.noteDisposed($0.serial) }
            },
            resolve: { try $0.resolveThrows(KSAMade.self, argument: $1) }
        )
        try check(
            [Double?.some(.nan), nil, .some(.nan), nil, 2, 2],
            model: { AnyHashable($0) },
            register: { container, counts in
                container.register(KSAMade.self) { (_, _: Double?) in KSAMade(serial: counts.next()) }
                    .inObjectScope(.multiton).onDispose { counts.noteDisposed($0.serial) }
            },
            resolve: { try $0.resolveThrows(KSAMade.self, argument: $1) }
        )
    }

    @Test("AnyHashable and any Hashable arguments holding NaNs, next to equal ordinary ones")
    func existentialKeys() throws {
        let values: [AnyHashable] = [
            AnyHashable(Double.nan), AnyHashable(1), AnyHashable(Float.nan), AnyHashable(1.0),
            AnyHashable(Double.nan), AnyHashable(Int8(1)), AnyHashable(KSANever()), AnyHashable(KSANever()),
        ]
        try check(
            values,
            model: { $0 },
            register: { container, counts in
                container.register(KSAMade.self) { (_, _: AnyHashable) in KSAMade(serial: counts.next()) }
                    .inObjectScope(.multiton).onDispose { counts.noteDisposed($0.serial) }
            },
            resolve: { try $0.resolveThrows(KSAMade.self, argument: $1) }
        )
        try check(
            values.map { $0.base as! any Hashable },
            model: { ksaAnyHashable($0) },
            register: { container, counts in
                container.register(KSAMade.self) { (_, _: any Hashable) in KSAMade(serial: counts.next()) }
                    .inObjectScope(.multiton).onDispose { counts.noteDisposed($0.serial) }
            },
            resolve: { try $0.resolveThrows(KSAMade.self, argument: $1) }
        )
    }

    @Test("Structs: synthesized == over a NaN field, an == that is never true")
    func structKeys() throws {
        try check(
            [KSAPoint(x: .nan, y: 1), KSAPoint(x: 1, y: 1), KSAPoint(x: .nan, y: 1), KSAPoint(x: 1, y: 1)],
            model: { AnyHashable($0) },
            register: { container, counts in
                container.register(KSAMade.self) { (_, _: KSAPoint) in KSAMade(serial: counts.next()) }
                    .inObjectScope(.multiton).onDispose { counts.noteDisposed($0.serial) }
            },
            resolve: { try $0.resolveThrows(KSAMade.self, argument: $1) }
        )
        try check(
            [KSANever(), KSANever(), KSANever()],
            model: { AnyHashable($0) },
            register: { container, counts in
                container.register(KSAMade.self) { (_, _: KSANever) in KSAMade(serial: counts.next()) }
                    .inObjectScope(.multiton).onDispose { counts.noteDisposed($0.serial) }
            },
            resolve: { try $0.resolveThrows(KSAMade.self, argument: $1) }
        )
    }

    // FINDING (pre-existing, not made by the change, benign): `MultitonKey` says keys compare "as
    // AnyHashable compares them", and `storable` that a key not equal to itself is "equal to no later key,
    // as AnyHashable says of such values". A single `[Double]` argument holding a NaN is compared with
    // Array's own `==`, which is true for two arrays sharing their storage: `storable` finds such a key equal
    // to itself and keeps it by value, and a later resolve with the same array (same storage) hits it. But
    // `AnyHashable(shared) == AnyHashable(shared)` is false for `let shared = [Double.nan, 1]`, so by the
    // documented rule every resolve should make a new instance.
    @Test("A [Double] argument holding a NaN, passed again with the same storage: compared as AnyHashable?")
    func arraySharingStorage() throws {
        let shared = [Double.nan, 1]
        #expect(AnyHashable(shared) != AnyHashable(shared))
        withKnownIssue("the same NaN-holding array hits (Array's == shortcut), where AnyHashable says unequal") {
            try check(
                [shared, shared, [Double.nan, 1], shared, [1, 2], [1, 2]],
                model: { AnyHashable($0) },
                register: { container, counts in
                    container.register(KSAMade.self) { (_, _: [Double]) in KSAMade(serial: counts.next()) }
                        .inObjectScope(.multiton).onDispose { counts.noteDisposed($0.serial) }
                },
                resolve: { try $0.resolveThrows(KSAMade.self, argument: $1) }
            )
        }
    }

    @Test("Several arguments, one or all of them NaN, by the tuple cast and by reflection (five)")
    func tupleKeys() throws {
        let pairs: [(Int, Double)] = [(1, .nan), (1, .nan), (1, 1), (1, 1), (2, .nan), (1, 1)]
        try check(
            pairs,
            model: { AnyHashable([AnyHashable($0.0), AnyHashable($0.1)]) },
            register: { container, counts in
                container.register(KSAMade.self) { (_, _: Int, _: Double) in KSAMade(serial: counts.next()) }
                    .inObjectScope(.multiton).onDispose { counts.noteDisposed($0.serial) }
            },
            resolve: { try $0.resolveThrows(KSAMade.self, arguments: $1.0, $1.1) }
        )
        let nans: [(Double, Double?)] = [(.nan, .nan), (.nan, .nan), (1, nil), (1, nil), (.nan, nil)]
        try check(
            nans,
            model: { AnyHashable([AnyHashable($0.0), AnyHashable($0.1)]) },
            register: { container, counts in
                container.register(KSAMade.self) { (_, _: Double, _: Double?) in KSAMade(serial: counts.next()) }
                    .inObjectScope(.multiton).onDispose { counts.noteDisposed($0.serial) }
            },
            resolve: { try $0.resolveThrows(KSAMade.self, arguments: $1.0, $1.1) }
        )
        let fives: [(Int, Int, Int, Int, Double)] = [(1, 2, 3, 4, .nan), (1, 2, 3, 4, .nan), (1, 2, 3, 4, 5)]
        try check(
            fives + [(1, 2, 3, 4, 5)],
            model: { AnyHashable([$0.0, $0.1, $0.2, $0.3, AnyHashable($0.4)] as [AnyHashable]) },
            register: { container, counts in
                container.register(KSAMade.self) { (_, _: Int, _: Int, _: Int, _: Int, _: Double) in
                    KSAMade(serial: counts.next())
                }
                .inObjectScope(.multiton).onDispose { counts.noteDisposed($0.serial) }
            },
            resolve: { try $0.resolveThrows(KSAMade.self, arguments: $1.0, $1.1, $1.2, $1.3, $1.4) }
        )
    }

    @Test("Through a synchronized view and a child container: NaN never hits, 1.0 always does")
    func viewsAndChildren() throws {
        let container = Container()
        let counts = KSACounts()
        container.register(KSAMade.self) { (_, _: Double) in KSAMade(serial: counts.next()) }
            .inObjectScope(.multiton).onDispose { counts.noteDisposed($0.serial) }
        let view = container.synchronize()
        let child = Container(parent: container)
        let resolvers: [any Resolver] = [container, view, child, child.synchronize()]
        var nanSerials: Set<Int> = []
        var one: KSAMade?
        for resolver in resolvers {
            for _ in 0..<3 {
                nanSerials.insert(try resolver.resolveThrows(KSAMade.self, argument: Double.nan).serial)
                let hit = try resolver.resolveThrows(KSAMade.self, argument: 1.0)
                #expect(one == nil || hit === one)
                one = hit
            }
        }
        #expect(nanSerials.count == 12)
        // The child keeps nothing of the parent's registration; the parent ends all of them, once each.
        try child.dispose()
        #expect(counts.totalDisposals == 0)
        try container.dispose()
        #expect(counts.totalDisposals == 13)
        #expect(Set(counts.disposals).count == 13)
    }

    @Test("10,000 NaN resolves keep 10,000 instances; dispose() ends and releases each once, newest first")
    func manyNaNResolves() throws {
        let container = Container()
        let counts = KSACounts()
        let entry = container.register(KSAMade.self) { (_, _: Double) in KSAMade(serial: counts.next()) }
            .inObjectScope(.multiton).onDispose { counts.noteDisposed($0.serial) }
        let weak = KSAWeakSet()
        for _ in 0..<10_000 {
            weak.add(try container.resolveThrows(KSAMade.self, argument: Double.nan))
        }
        _ = try container.resolveThrows(KSAMade.self, argument: 3.0)
        #expect(entry.cache?.byArguments.count == 10_001)
        #expect(weak.alive == 10_000)
        try container.dispose()
        #expect(weak.alive == 0)
        #expect(entry.cache?.byArguments.isEmpty ?? true)
        #expect(counts.disposals == Array((1...10_001).reversed()))
    }

    @Test("NaN keys mixed with ordinary ones across resetObjectScope, re-registration and removeAll()")
    func mixedWithResets() throws {
        let container = Container()
        let counts = KSACounts()
        func register() {
            container.register(KSAMade.self) { (_, _: Double) in KSAMade(serial: counts.next()) }
                .inObjectScope(.multiton).onDispose { counts.noteDisposed($0.serial) }
        }
        register()
        let a = try container.resolveThrows(KSAMade.self, argument: 1.0)
        let nan1 = try container.resolveThrows(KSAMade.self, argument: Double.nan)
        #expect(try container.resolveThrows(KSAMade.self, argument: 1.0) === a)
        container.resetObjectScope(.multiton)
        #expect(counts.disposals == [nan1.serial, a.serial])
        let b = try container.resolveThrows(KSAMade.self, argument: 1.0)
        #expect(b !== a)
        let nan2 = try container.resolveThrows(KSAMade.self, argument: Double.nan)
        container.resetObjectScope(.multiton, serviceType: KSAMade.self)
        #expect(counts.disposals.suffix(2) == [nan2.serial, b.serial])
        let nan3 = try container.resolveThrows(KSAMade.self, argument: Double.nan)
        register()  // Re-registration: the old registration's instances are its own.
        let c = try container.resolveThrows(KSAMade.self, argument: 1.0)
        let nan4 = try container.resolveThrows(KSAMade.self, argument: Double.nan)
        container.removeAll()
        try container.dispose()
        // Whatever re-registration and removeAll() do with kept instances, each is ended at most once, and
        // the ones kept by the current registration exactly once.
        for serial in [a, nan1, b, nan2, nan3, c, nan4].map(\.serial) {
            #expect(counts.disposed(serial) <= 1, "serial \(serial) disposed of \(counts.disposed(serial)) times")
        }
        #expect(counts.disposed(a.serial) == 1)
        #expect(counts.disposed(nan2.serial) == 1)
    }

    @Test("An initCompleted action that resolves the same NaN key again recurses to the depth limit, keeps nothing")
    func actionResolvesSameNaN() throws {
        try ksaOnThread(stackSize: 64 << 20) {
            let container = Container()
            let counts = KSACounts()
            let weak = KSAWeakSet()
            let entry = container.register(KSAMade.self) { (_, _: Double) in KSAMade(serial: counts.next()) }
                .inObjectScope(.multiton)
                .initCompleted { r, made in
                    weak.add(made)
                    _ = try r.resolveThrows(KSAMade.self, argument: Double.nan)
                }
                .onDispose { counts.noteDisposed($0.serial) }
            let result = container.resolveResult(KSAMade.self, argument: Double.nan)
            switch result {
            case .failure(.depthLimitExceeded(_, let limit)):
                #expect(limit == ResolutionState.maximumDepth)
            case .failure(.factoryFailed(_, _, let underlying)):
                guard case .depthLimitExceeded = underlying as? DIError else {
                    Issue.record("expected depthLimitExceeded underneath, got \(underlying)")
                    return
                }
            default:
                Issue.record("expected depthLimitExceeded, got \(result)")
            }
            #expect(counts.made > 1)
            #expect(entry.cache?.byArguments.isEmpty ?? true)
            #expect(weak.alive == 0)
            try container.dispose()
            #expect(counts.totalDisposals == 0)
            // The same with an ordinary key is a reentry: the instance stored before its actions.
            let ordinary = container.register(KSAMade.self, name: "ordinary") { (_, _: Double) in
                KSAMade(serial: counts.next())
            }
            .inObjectScope(.multiton)
            .initCompleted { r, made in
                let again = try r.resolveThrows(KSAMade.self, name: "ordinary", argument: 1.0)
                #expect(again === made)
            }
            _ = try container.resolveThrows(KSAMade.self, name: "ordinary", argument: 1.0)
            #expect(ordinary.cache?.byArguments.count == 1)
        }
    }

    @Test("A factory recursing on a NaN argument is recursion, not a cycle: it stops at the depth limit")
    func factoryRecursesOnNaN() throws {
        try ksaOnThread(stackSize: 64 << 20) {
            let container = Container()
            let counts = KSACounts()
            let entry = container.register(KSAMade.self) { (r, value: Double) in
                _ = try r.resolveThrows(KSAMade.self, argument: value)
                return KSAMade(serial: counts.next())
            }
            .inObjectScope(.multiton)
            .onDispose { counts.noteDisposed($0.serial) }
            let result = container.resolveResult(KSAMade.self, argument: Double.nan)
            guard case .failure(.depthLimitExceeded(let path, let limit)) = result else {
                Issue.record("expected depthLimitExceeded, got \(result)")
                return
            }
            #expect(limit == ResolutionState.maximumDepth)
            #expect(path.count == limit + 1)
            // With 2.0 it is a cycle.
            guard case .failure(.circularDependency) = container.resolveResult(KSAMade.self, argument: 2.0) else {
                Issue.record("expected a cycle")
                return
            }
            #expect(counts.made == 0)
            #expect(entry.cache?.byArguments.isEmpty ?? true)
        }
    }

    @Test("Captive-dependency validation drops a NaN key's instance as it drops an ordinary key's")
    func captiveDependencyDropsNaN() throws {
        var outcomes: [[Int]] = []
        for argument in [2.5, Double.nan] {
            let root = Container()
            let counts = KSACounts()
            root.register(KSAOther.self) { _ in KSAOther() }
            let entry = root.register(KSAMade.self) { (r, _: Double) in
                _ = try r.resolveThrows(KSAOther.self)
                return KSAMade(serial: counts.next())
            }
            .inObjectScope(.multiton)
            .onDispose { counts.noteDisposed($0.serial) }
            let child = Container(parent: root)
            child.register(KSAOther.self) { _ in KSAOther() }
            root.validatesScopes = true
            let result = child.resolveResult(KSAMade.self, argument: argument)
            guard case .failure(.captiveDependency) = result else {
                Issue.record("\(argument): expected captiveDependency, got \(result)")
                continue
            }
            let kept = entry.cache?.byArguments.count ?? 0
            let disposedByCall = counts.totalDisposals
            try root.dispose()
            outcomes.append([kept, counts.made, disposedByCall, counts.totalDisposals])
        }
        #expect(outcomes.count == 2)
        #expect(outcomes.first == outcomes.last, "2.5 then NaN: \(outcomes)")
        #expect(outcomes.first?.last ?? 0 <= 1)
    }
}

// MARK: - One creation under an irreflexive key behaves as one under a fresh ordinary key

/// What happens to one creation: the call's outcome, whether its instance stays kept, how often it was
/// ended after the call and after `dispose()`, and whether it was released.
private struct KSAOutcome: Equatable, CustomStringConvertible {
    var outcome: String
    var keptAfterCall: Int
    var disposedAfterCall: Int
    var disposedAfterDispose: Int
    var released: Bool

    var description: String {
        "\(outcome) kept:\(keptAfterCall) ended:\(disposedAfterCall)/\(disposedAfterDispose) released:\(released)"
    }
}

/// What a factory or `initCompleted` action does to its own registration while the creation runs.
enum KSADrop: String, CaseIterable, Sendable {
    case none
    case throwInFactory
    case throwInAction
    case resetInFactory
    case resetInAction
    case resetTypeInFactory
    case reregisterInFactory
    case reregisterInAction
    case removeAllInFactory
    case rescopeInFactory
    case disposeInFactory
    case disposeInAction
}

/// The arguments a creation runs under: a fresh ordinary value, or one that does not equal itself.
enum KSAKey: String, CaseIterable, Sendable {
    case ordinary
    case nan
    case never
    case optionalNaN
    case pointNaN
}

private func outcomeName(_ result: Result<KSAMade, DIError>) -> String {
    switch result {
    case .success: "success"
    case .failure(let error):
        switch error {
        case .factoryFailed: "factoryFailed"
        case .invalidUsage: "invalidUsage"
        default: "\(error)"
        }
    }
}

@Suite("KeyStackAttack: a creation under an irreflexive key, against one under an ordinary key", .tags(.engine))
struct KeyStackAttackDifferentialTests {
    /// Runs one synchronous creation under `key`, from `route` (0: the container, 1: its synchronized view,
    /// 2: a child container), whose factory or action does `drop`.
    private func run(_ drop: KSADrop, key: KSAKey, route: Int) throws -> KSAOutcome {
        let container = Container()
        let counts = KSACounts()
        let weak = KSAWeakSet()
        unowned let unownedContainer = container
        var registered: [ServiceEntry<KSAMade>] = []
        func act(_ r: any Resolver, inFactory: Bool) throws {
            switch (drop, inFactory) {
            case (.throwInFactory, true), (.throwInAction, false): throw KSAFailure()
            case (.resetInFactory, true), (.resetInAction, false): unownedContainer.resetObjectScope(.multiton)
            case (.resetTypeInFactory, true):
                unownedContainer.resetObjectScope(.multiton, serviceType: KSAMade.self)
            case (.reregisterInFactory, true), (.reregisterInAction, false):
                registerAll(unownedContainer, counts: counts, weak: weak, act: { _, _ in })
            case (.removeAllInFactory, true): unownedContainer.removeAll()
            case (.rescopeInFactory, true):
                // The registration of this key's type changes scope under its creation.
                for entry in registered { _ = entry.inObjectScope(.container) }
            case (.disposeInFactory, true), (.disposeInAction, false): try unownedContainer.dispose()
            default: break
            }
        }
        registered = registerAll(container, counts: counts, weak: weak, act: act)
        let resolver: any Resolver =
            switch route {
            case 0: container
            case 1: container.synchronize()
            default: Container(parent: container)
            }
        var result: Result<KSAMade, DIError>
        switch key {
        case .ordinary: result = resolver.resolveResult(KSAMade.self, argument: 2.5)
        case .nan: result = resolver.resolveResult(KSAMade.self, argument: Double.nan)
        case .never: result = resolver.resolveResult(KSAMade.self, argument: KSANever())
        case .optionalNaN: result = resolver.resolveResult(KSAMade.self, argument: Double?.some(.nan))
        case .pointNaN: result = resolver.resolveResult(KSAMade.self, argument: KSAPoint(x: .nan, y: 0))
        }
        let name = outcomeName(result)
        result = .failure(.invalidUsage(message: "dropped"))
        let kept = registered.reduce(0) {
            $0 + ($1.cache?.byArguments.count ?? 0) + ($1.cache?.instance == nil ? 0 : 1)
        }
        let afterCall = counts.disposed(1)
        _ = try? container.dispose()
        return KSAOutcome(
            outcome: name,
            keptAfterCall: kept,
            disposedAfterCall: afterCall,
            disposedAfterDispose: counts.disposed(1),
            released: weak.alive == 0
        )
    }

    /// Registers a `.multiton` `KSAMade` for each argument type the keys use.
    @discardableResult
    private func registerAll(
        _ container: Container,
        counts: KSACounts,
        weak: KSAWeakSet,
        act: @escaping (any Resolver, Bool) throws -> Void
    ) -> [ServiceEntry<KSAMade>] {
        func make(_ r: any Resolver) throws -> KSAMade {
            try act(r, true)
            let made = KSAMade(serial: counts.next())
            weak.add(made)
            return made
        }
        func configure(_ entry: ServiceEntry<KSAMade>) -> ServiceEntry<KSAMade> {
            entry.inObjectScope(.multiton)
                .initCompleted { r, _ in try act(r, false) }
                .onDispose { counts.noteDisposed($0.serial) }
        }
        return [
            configure(container.register(KSAMade.self) { (r, _: Double) in try make(r) }),
            configure(container.register(KSAMade.self) { (r, _: KSANever) in try make(r) }),
            configure(container.register(KSAMade.self) { (r, _: Double?) in try make(r) }),
            configure(container.register(KSAMade.self) { (r, _: KSAPoint) in try make(r) }),
        ]
    }

    @Test("Every drop, from the container, its synchronized view and a child", arguments: KSADrop.allCases)
    func sameAsOrdinary(drop: KSADrop) throws {
        for route in 0..<3 {
            let control = try run(drop, key: .ordinary, route: route)
            for key in KSAKey.allCases where key != .ordinary {
                let outcome = try run(drop, key: key, route: route)
                #expect(outcome == control, "\(drop) \(key) route \(route): \(outcome), ordinary: \(control)")
            }
            // Sanity of the control itself: an instance is never ended twice.
            #expect(control.disposedAfterDispose <= 1, "\(drop) route \(route): \(control)")
        }
    }

    @Test("A key whose == stops being reflexive while its creation runs: each instance ended at most once")
    func flakyKey() throws {
        defer { KSAFlaky.equalsItself = true }
        for flipInFactory in [false, true] {
            KSAFlaky.equalsItself = true
            let container = Container()
            let counts = KSACounts()
            container.register(KSAMade.self) { (_, _: KSAFlaky) in
                if flipInFactory { KSAFlaky.equalsItself = false }
                return KSAMade(serial: counts.next())
            }
            .inObjectScope(.multiton)
            .onDispose { counts.noteDisposed($0.serial) }
            let first = try container.resolveThrows(KSAMade.self, argument: KSAFlaky(value: 1))
            KSAFlaky.equalsItself = true
            let second = try container.resolveThrows(KSAMade.self, argument: KSAFlaky(value: 1))
            KSAFlaky.equalsItself = false
            let third = try container.resolveThrows(KSAMade.self, argument: KSAFlaky(value: 1))
            KSAFlaky.equalsItself = true
            try container.dispose()
            for made in [first, second, third] {
                #expect(counts.disposed(made.serial) == 1, "flip \(flipInFactory): \(made.serial)")
            }
        }
    }
}

// MARK: - Async creations under irreflexive keys

@Suite("KeyStackAttack: async creations under NaN keys", .tags(.engine, .concurrency), .hangLimit)
struct KeyStackAttackAsyncTests {
    private func flights(_ container: Container) -> Int {
        container.withHierarchyLock { container.hierarchy.flights.count }
    }

    @Test("Hundreds of concurrent NaN resolves, plain and through a synchronized view: no flight left, each ended once")
    func concurrentNaNResolves() async throws {
        for synchronized in [false, true] {
            let container = Container()
            let counts = KSACounts()
            let entry = container.registerAsync(KSAMade.self) { (_, value: Double) in
                await Task.yield()
                return KSAMade(serial: counts.next())
            }
            .inObjectScope(.multiton)
            .onDispose { counts.noteDisposed($0.serial) }
            let resolver: any Resolver = synchronized ? container.synchronize() : container
            let results = try await withThrowingTaskGroup(of: (Bool, Int).self) { group in
                for index in 0..<200 {
                    let nan = index % 2 == 0
                    let handle = Handoff(resolver)
                    group.addTask {
                        let made = try await handle.value.resolveAsync(KSAMade.self, argument: nan ? Double.nan : 1.0)
                        return (nan, made.serial)
                    }
                }
                var collected: [(Bool, Int)] = []
                for try await result in group { collected.append(result) }
                return collected
            }
            let nanSerials = results.filter(\.0).map(\.1)
            let oneSerials = Set(results.filter { !$0.0 }.map(\.1))
            #expect(Set(nanSerials).count == 100, "synchronized \(synchronized)")
            #expect(oneSerials.count == 1, "synchronized \(synchronized)")
            #expect(flights(container) == 0, "synchronized \(synchronized)")
            #expect(entry.cache?.byArguments.count == 101)
            try await container.disposeAsync()
            #expect(counts.totalDisposals == 101)
            #expect(Set(counts.disposals).count == 101)
            #expect(counts.made == 101)
        }
    }

    /// An async `.multiton` creation under `argument` that waits at a gate; while it waits, `during` runs,
    /// and may start a task the test awaits after the call. Returns whether the call succeeded, how many
    /// instances stay kept, how often its instance was ended after the call and after a final
    /// `disposeAsync()`, and the flights left.
    private func gated(
        argument: Double,
        during: @escaping @Sendable (Container) async throws -> Task<Void, any Error>?
    ) async throws -> [Int] {
        let container = Container()
        let counts = KSACounts()
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let (gate, gateContinuation) = AsyncStream<Void>.makeStream()
        let gateBox = Handoff(gate)
        let entry = container.registerAsync(KSAMade.self) { (_, _: Double) in
            startedContinuation.yield()
            for await _ in gateBox.value { break }
            return KSAMade(serial: counts.next())
        }
        .inObjectScope(.multiton)
        .onDispose { counts.noteDisposed($0.serial) }
        let handle = Handoff(container)
        let call = Task { try await handle.value.resolveAsync(KSAMade.self, argument: argument).serial }
        for await _ in started { break }
        let side = try await during(container)
        gateContinuation.yield()
        let serial = (try? await call.value) ?? 0
        _ = try await side?.value
        let kept = entry.cache?.byArguments.count ?? 0
        let afterCall = counts.disposed(1)
        try await container.disposeAsync()
        return [serial == 0 ? 0 : 1, kept, afterCall, counts.disposed(1), flights(container), counts.made]
    }

    @Test("dispose(), disposeAsync(), resetObjectScope and removeAll() while a NaN creation is in flight: as for 2.5")
    func dropsInFlight() async throws {
        let drops: [(String, @Sendable (Container) async throws -> Task<Void, any Error>?)] = [
            ("none", { _ in nil }),
            (
                "dispose",
                {
                    try $0.dispose(); return nil
                }
            ),
            (
                "reset",
                {
                    $0.resetObjectScope(.multiton); return nil
                }
            ),
            (
                "removeAll",
                {
                    $0.removeAll(); return nil
                }
            ),
            (
                "disposeAsync",
                { container in
                    // disposeAsync waits for the creation in flight: it runs beside it, and is awaited after.
                    let handle = Handoff(container)
                    return Task { try await handle.value.disposeAsync() }
                }
            ),
        ]
        for (name, drop) in drops {
            let control = try await gated(argument: 2.5, during: drop)
            let nan = try await gated(argument: .nan, during: drop)
            #expect(nan == control, "\(name): NaN \(nan), 2.5 \(control)")
            #expect(control[4] == 0, "\(name): flights left")
            #expect(control[3] <= 1, "\(name): \(control)")
        }
    }
}

// MARK: - Near misses across a hierarchy

@Suite("KeyStackAttack: a miss's near misses", .tags(.engine))
struct KeyStackAttackCandidateTests {
    @Test("Duplicates across levels, names, argument types and forwarded types: nearest first, each once")
    func modelOrder() throws {
        let root = Container()
        let middle = Container(parent: root)
        let leaf = Container(parent: middle)
        typealias S = any KSAService
        root.register(S.self, name: "a") { _ in KSAThing() }
        root.register(S.self) { (_, _: Int) in KSAThing() }
        root.register(KSAThing.self, name: "fwd") { _ in KSAThing() }.implements(S.self, name: "fwd")
        middle.register(S.self, name: "a") { _ in KSAThing() }
        middle.register(S.self, name: "m") { _ in KSAThing() }
        middle.register(S.self) { (_, _: Int) in KSAThing() }
        middle.register(S.self) { (_, _: String, _: Int) in KSAThing() }
        leaf.register(S.self, name: "m") { _ in KSAThing() }
        leaf.register(S.self, name: "l") { _ in KSAThing() }
        leaf.register(KSAThing.self, name: "lf") { _ in KSAThing() }.implements(S.self, name: "leafFwd")
        let missing = ServiceKey(serviceType: S.self, name: "nope")
        // The model: each level's keys of S, nearest level first, each once.
        let levels: [[ServiceKey]] = [leaf, middle, root].map { container in
            var keys: [ServiceKey] = []
            container.table.forEachKey(of: S.self) { keys.append($0) }
            return keys
        }
        var expected: [ServiceKey] = []
        for level in levels {
            for key in level where key != missing && !expected.contains(key) { expected.append(key) }
        }
        #expect(expected.count == 7)
        for (container, depth) in [(leaf, 0), (middle, 1), (root, 2)] {
            let result = container.resolveResult(S.self, name: "nope")
            guard case .failure(.notRegistered(let key, let path, let candidates)) = result else {
                Issue.record("expected notRegistered, got \(result)")
                continue
            }
            #expect(key == missing)
            #expect(path.isEmpty)
            var model: [ServiceKey] = []
            for level in levels[depth...] {
                for key in level where key != missing && !model.contains(key) { model.append(key) }
            }
            #expect(candidates == model, "from depth \(depth)")
        }
        // A miss of a key whose name exists with other arguments lists the others, not itself.
        guard case .failure(.notRegistered(_, _, let candidates)) = leaf.resolveResult(S.self, name: "m", argument: 1)
        else {
            Issue.record("expected notRegistered")
            return
        }
        #expect(candidates.contains(ServiceKey(serviceType: S.self, name: "m")))
        #expect(Set(candidates).count == candidates.count)
    }

    @Test("A miss inside a factory that changed the registrations first lists what is registered then")
    func registrationsChangedByFactory() throws {
        let root = Container()
        let leaf = Container(parent: root)
        unowned let unownedRoot = root
        unowned let unownedLeaf = leaf
        root.register(KSAOther.self) { r in
            unownedLeaf.register(KSAThing.self, name: "late-leaf") { _ in KSAThing() }
            unownedRoot.register(KSAThing.self, name: "late-root") { _ in KSAThing() }
            unownedRoot.register(KSAThing.self, name: "late-root") { _ in KSAThing() }  // replaced: still once
            _ = try r.resolveThrows(KSAThing.self)
            return KSAOther()
        }
        let result = leaf.resolveResult(KSAOther.self)
        guard case .failure(.notRegistered(let key, let path, let candidates)) = result else {
            Issue.record("expected notRegistered, got \(result)")
            return
        }
        #expect(key == ServiceKey(serviceType: KSAThing.self))
        #expect(path == [ServiceKey(serviceType: KSAOther.self)])
        // The factory was handed the container the call came through (the leaf) or the registration's (the
        // root): either way, the candidates are those of the container that missed and its ancestors.
        let expected = [
            ServiceKey(serviceType: KSAThing.self, name: "late-leaf"),
            ServiceKey(serviceType: KSAThing.self, name: "late-root"),
        ]
        #expect(candidates == expected || candidates == [expected[1]], "\(candidates)")
        // A miss of something nobody registered, anywhere, 3,000 levels down: none.
        var chain: [Container] = [leaf]
        for _ in 0..<3_000 { chain.append(Container(parent: chain[chain.count - 1])) }
        guard case .failure(.notRegistered(_, _, let none)) = chain[chain.count - 1].resolveResult(KSAAbsent.self)
        else {
            Issue.record("expected notRegistered")
            return
        }
        #expect(none.isEmpty)
        guard
            case .failure(.notRegistered(_, _, let some)) = chain[chain.count - 1].resolveResult(
                KSAThing.self,
                name: "x"
            )
        else {
            Issue.record("expected notRegistered")
            return
        }
        #expect(some == [expected[0], expected[1]])
        // Released leaf first, so that no container's deinit releases a long chain of parents.
        while !chain.isEmpty { chain.removeLast() }
    }

    /// Resolves, from the leaf of a hierarchy `depth` deep, on a thread with `stack` bytes of stack, a key
    /// registered at the root (`miss` false) or a near miss of it (`miss` true), in a process of its own;
    /// expects it answered.
    ///
    /// FINDING (pre-existing, not made by the change): 5,000 levels overflow a 512 KiB thread (and 2,000 a
    /// 256 KiB one) with SIGSEGV on a *hit* as well as on a miss. The overflow is `Container.lookup`, which
    /// recurses over the parent chain (debug: 0xd8-byte frame; release: still a call per level), not the new
    /// `collectCandidates`: its debug frame is smaller (0xb8) and the optimizer turns it into a loop (no
    /// self-call in the release object). So the near-miss walk overflows nowhere the lookup before it did
    /// not. 500 levels on 256 KiB: both answered.
    @Test(
        "A hierarchy thousands deep, on a thread with a small stack: a hit and a miss, each in a process",
        .tags(.deepStack),
        .enabled(if: !ksaSanitized, "instrumented frames take more stack"),
        arguments: [(500, 256 << 10), (5_000, 512 << 10)],
        [false, true]
    )
    func deepHierarchySmallStack(_ shape: (depth: Int, stack: Int), miss: Bool) async {
        // Intermittent: an optimized build's frames are smaller, and 5,000 levels fit in 512 KiB there.
        await withKnownIssue(
            "Container.lookup recurses per level: 5,000 levels overflow 512 KiB in a debug build, hit or miss",
            isIntermittent: true
        ) {
            await #expect(processExitsWith: .success, "\(shape.depth) deep, \(shape.stack) bytes, miss \(miss)") {
                [depth = shape.depth as Int, stack = shape.stack as Int, miss = miss as Bool] in
                let root = Container()
                root.register(KSAThing.self, name: "root") { _ in KSAThing() }
                var chain: [Container] = [root]
                for _ in 0..<depth { chain.append(Container(parent: chain[chain.count - 1])) }
                let leaf = chain[chain.count - 1]
                let answered = try ksaOnThread(stackSize: stack) { () -> Bool in
                    if miss {
                        guard case .failure(.notRegistered(_, _, let candidates)) = leaf.resolveResult(KSAThing.self)
                        else { return false }
                        return candidates == [ServiceKey(serviceType: KSAThing.self, name: "root")]
                    }
                    guard case .success = leaf.resolveResult(KSAThing.self, name: "root") else { return false }
                    return true
                }
                exit(answered ? EXIT_SUCCESS : EXIT_FAILURE)
            }
        } when: {
            shape.depth >= 5_000
        }
    }
}

// MARK: - The stack check on small stacks

/// Registers `KSANode` built by recursion over an `Int`: `n` resolves `n - 1`, down to 0.
private func registerRecursion(in container: Container) {
    container.register(KSANode.self) { (r, n: Int) in
        KSANode(depth: n, next: n == 0 ? nil : try r.resolveThrows(KSANode.self, argument: n - 1))
    }
}

/// Resolves a recursion `levels` deep on this thread; returns the depth reached, or the limit it stopped at.
private func resolveDeep(_ levels: Int) -> Result<Int, DIError> {
    let container = Container()
    registerRecursion(in: container)
    return container.resolveResult(KSANode.self, argument: levels).map(\.depth)
}

@Suite(
    "KeyStackAttack: the depth limit on small stacks",
    .tags(.deepStack),
    .serialized,
    // Under Address Sanitizer the stack check reads ASan's fake stack and is off (only the 200 levels
    // apply, ARCHITECTURE.md); Thread Sanitizer's frames are bigger: CI leaves these out of both.
    .enabled(if: !ksaSanitized, "instrumented frames take more stack")
)
struct KeyStackAttackStackTests {
    @Test("Recursion past the limit on 256 KiB, 512 KiB and 1 MiB threads fails with depthLimitExceeded")
    func smallThreads() throws {
        for stack in [256 << 10, 512 << 10, 1 << 20, 8 << 20] {
            for levels in [150, 199, 250] {
                let result = try ksaOnThread(stackSize: stack) { resolveDeep(levels) }
                switch result {
                case .success(let depth):
                    #expect(depth == levels)
                    #expect(levels < ResolutionState.maximumDepth)
                case .failure(.depthLimitExceeded(let path, let limit)):
                    #expect(limit <= ResolutionState.maximumDepth, "\(stack): \(limit)")
                    #expect(path.count == limit + 1)
                    if stack >= 8 << 20 || levels >= ResolutionState.maximumDepth {
                        // A big stack stops only at the limit; anything else is the stack check.
                        #expect(stack < 8 << 20 || limit == ResolutionState.maximumDepth)
                    } else {
                        #expect(stack < 8 << 20, "\(stack): stopped at \(limit) for \(levels)")
                    }
                case .failure(let error):
                    Issue.record("\(stack), \(levels): \(error)")
                }
            }
        }
    }

    // Swift Testing runs a @MainActor test on the main actor, which on Linux is not the process's main
    // thread: this is the main actor's (and the test runner's) stack.
    @MainActor
    @Test("Recursion past the limit on the main actor fails with depthLimitExceeded at the limit")
    func mainThread() {
        let result = resolveDeep(250)
        guard case .failure(.depthLimitExceeded(let path, let limit)) = result else {
            Issue.record("expected depthLimitExceeded, got \(result)")
            return
        }
        #expect(limit == ResolutionState.maximumDepth)
        #expect(path.count == limit + 1)
        guard case .success(199) = resolveDeep(199) else {
            Issue.record("expected 199 levels to resolve")
            return
        }
    }
}

@Suite("KeyStackAttack: the depth limit on a big stack, sanitized or not", .tags(.engine))
struct KeyStackAttackBigStackTests {
    @Test("On a 64 MiB thread, 199 levels resolve and 250 stop at exactly 200 (under ASan too)")
    func bigThread() throws {
        let (deep, tooDeep) = try ksaOnThread(stackSize: 64 << 20) { (resolveDeep(199), resolveDeep(250)) }
        guard case .success(199) = deep else {
            Issue.record("expected 199 levels, got \(deep)")
            return
        }
        guard case .failure(.depthLimitExceeded(let path, let limit)) = tooDeep else {
            Issue.record("expected depthLimitExceeded, got \(tooDeep)")
            return
        }
        #expect(limit == ResolutionState.maximumDepth)
        #expect(path.count == limit + 1)
    }
}

import Dispatch
import Foundation
import Keystone
import Testing

// Attacks on the performance changes: `.multiton` keys (MultitonKey), resolveAll's collected slots and
// the disposal shortcuts. Each test states the semantics it checks, as the DocC gives them.

private final class PCASession: Sendable {
    let key: String
    init(key: String) { self.key = key }
}

private protocol PCAPlugin: AnyObject {
    var name: String { get }
}

private final class PCANamed: PCAPlugin {
    let name: String
    let shared: PCAShared?
    init(name: String, shared: PCAShared? = nil) {
        self.name = name
        self.shared = shared
    }
}

private final class PCAOther: PCAPlugin {
    let name = "other"
}

private final class PCAShared {}

private final class PCANotAPlugin {}

private struct PCAValue: Equatable {
    let number: Int
}

private protocol PCAExistential {
    var number: Int { get }
}

private struct PCAExistentialValue: PCAExistential {
    let number: Int
}

private enum PCARole: Hashable {
    case guest
    case user(Int)
    case admin(name: String, level: Int)
}

/// A class whose equality is not its identity.
private final class PCAIdentity: Hashable {
    let value: Int
    init(_ value: Int) { self.value = value }
    static func == (lhs: PCAIdentity, rhs: PCAIdentity) -> Bool { lhs.value == rhs.value }
    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

private struct PCAUnhashable {
    let value: Int
}

private struct PCAFailure: Error {}

/// Identities seen per key, from many threads.
private final class PCAIdentities: @unchecked Sendable {
    // @unchecked: `seen` is used only under `lock`.
    private let lock = NSLock()
    private var seen: [String: Set<ObjectIdentifier>] = [:]
    // Keeps every object seen alive, so that no address is reused for another.
    private var kept: [AnyObject] = []

    func insert(_ key: String, _ object: AnyObject) {
        lock.lock()
        seen[key, default: []].insert(ObjectIdentifier(object))
        kept.append(object)
        lock.unlock()
    }

    var counts: [String: Int] {
        lock.lock()
        defer { lock.unlock() }
        return seen.mapValues(\.count)
    }
}

// MARK: - Multiton keys

@Suite("PerfChangeAttack multiton keys", .tags(.engine), .hangLimit, .timeLimit(.minutes(1)))
struct PerfChangeAttackMultitonTests {
    /// An `Any` argument: two values share an instance exactly when `AnyHashable` calls them equal.
    @Test func anyArgumentsShareAnInstanceExactlyWhenAnyHashableCallsThemEqual() throws {
        let values: [Any] = [
            // NSNumber is left out: on Linux, AnyHashable(7) != AnyHashable(NSNumber(7)) while the converse
            // is ==, with different hashes (swift-corelibs-foundation), so no key scheme can follow it.
            7 as Int, 7 as UInt8, 7 as Int8, 7.0 as Double, 7 as Int64, 8 as Int, "7", "7" as Substring,
            NSString(string: "7"), Optional(7) as Any, Optional<Int>.none as Any,
            PCARole.user(7), PCARole.guest, [7], [7 as UInt8], AnyHashable(7),
        ]
        for (i, first) in values.enumerated() {
            for (j, second) in values.enumerated() where j > i {
                let container = Container()
                container.register(PCASession.self) { (_, key: Any) in PCASession(key: "\(key)") }
                    .inObjectScope(.multiton)
                let a = try container.resolveThrows(PCASession.self, argument: first)
                let b = try container.resolveThrows(PCASession.self, argument: second)
                let equal = (first as? AnyHashable) == (second as? AnyHashable)
                #expect((a === b) == equal, "\(type(of: first)) \(first) vs \(type(of: second)) \(second)")
            }
        }
    }

    @Test func anyHashableArgumentsOfEqualNumbersOfDifferentTypesShareOneInstance() throws {
        let container = Container()
        container.register(PCASession.self) { (_, key: AnyHashable) in PCASession(key: "\(key)") }
            .inObjectScope(.multiton)
        let seven = try container.resolveThrows(PCASession.self, argument: AnyHashable(7 as Int))
        for other in [AnyHashable(7 as UInt8), AnyHashable(7.0), AnyHashable(7 as Int16)] {
            #expect(try container.resolveThrows(PCASession.self, argument: other) === seven, "\(other)")
        }
        #expect(try container.resolveThrows(PCASession.self, argument: AnyHashable("7")) !== seven)
    }

    @Test func foundationAndSubstringArgumentsCompareByValue() throws {
        let container = Container()
        container.register(PCASession.self) { (_, number: NSNumber) in PCASession(key: "\(number)") }
            .inObjectScope(.multiton)
        container.register(PCASession.self) { (_, text: NSString) in PCASession(key: "\(text)") }
            .inObjectScope(.multiton)
        container.register(PCASession.self) { (_, text: Substring) in PCASession(key: String(text)) }
            .inObjectScope(.multiton)
        let number = try container.resolveThrows(PCASession.self, argument: NSNumber(value: 7))
        #expect(try container.resolveThrows(PCASession.self, argument: NSNumber(value: 7)) === number)
        #expect(try container.resolveThrows(PCASession.self, argument: NSNumber(value: 8)) !== number)
        let text = try container.resolveThrows(PCASession.self, argument: NSString(string: "abc"))
        #expect(try container.resolveThrows(PCASession.self, argument: NSString(string: "ab" + "c")) === text)
        #expect(try container.resolveThrows(PCASession.self, argument: NSString(string: "abd")) !== text)
        let tail = try container.resolveThrows(PCASession.self, argument: "xbc".dropFirst())
        #expect(try container.resolveThrows(PCASession.self, argument: "ybc".dropFirst()) === tail)
        #expect(try container.resolveThrows(PCASession.self, argument: "ybd".dropFirst()) !== tail)
    }

    @Test func optionalArgumentsTellNilFromEverySomeValue() throws {
        let container = Container()
        container.register(PCASession.self) { (_, key: String?) in PCASession(key: key ?? "nil") }
            .inObjectScope(.multiton)
        container.register(PCASession.self) { (_, key: Int?, other: String?) in PCASession(key: "\(key as Any)") }
            .inObjectScope(.multiton)
        container.register(PCASession.self) { (_, key: Int??) in PCASession(key: "\(key as Any)") }
            .inObjectScope(.multiton)
        let none = try container.resolveThrows(PCASession.self, argument: nil as String?)
        #expect(try container.resolveThrows(PCASession.self, argument: nil as String?) === none)
        #expect(try container.resolveThrows(PCASession.self, argument: "" as String?) !== none)
        #expect(try container.resolveThrows(PCASession.self, argument: "nil" as String?) !== none)
        let pair = try container.resolveThrows(PCASession.self, arguments: nil as Int?, nil as String?)
        #expect(try container.resolveThrows(PCASession.self, arguments: nil as Int?, nil as String?) === pair)
        #expect(try container.resolveThrows(PCASession.self, arguments: 0 as Int?, nil as String?) !== pair)
        #expect(try container.resolveThrows(PCASession.self, arguments: nil as Int?, "" as String?) !== pair)
        let inner: Int?? = .some(nil)
        let outer: Int?? = .none
        let a = try container.resolveThrows(PCASession.self, argument: inner)
        let b = try container.resolveThrows(PCASession.self, argument: outer)
        #expect((a === b) == (AnyHashable(inner) == AnyHashable(outer)))
        #expect(try container.resolveThrows(PCASession.self, argument: inner) === a)
    }

    @Test func enumsAndClassesWithCustomEqualityCompareByValue() throws {
        let container = Container()
        container.register(PCASession.self) { (_, role: PCARole) in PCASession(key: "\(role)") }
            .inObjectScope(.multiton)
        container.register(PCASession.self) { (_, identity: PCAIdentity) in PCASession(key: "\(identity.value)") }
            .inObjectScope(.multiton)
        let admin = try container.resolveThrows(PCASession.self, argument: PCARole.admin(name: "a", level: 1))
        #expect(try container.resolveThrows(PCASession.self, argument: PCARole.admin(name: "a", level: 1)) === admin)
        #expect(try container.resolveThrows(PCASession.self, argument: PCARole.admin(name: "a", level: 2)) !== admin)
        let user = try container.resolveThrows(PCASession.self, argument: PCARole.user(1))
        #expect(try container.resolveThrows(PCASession.self, argument: PCARole.user(1)) === user)
        #expect(try container.resolveThrows(PCASession.self, argument: PCARole.guest) !== user)
        let one = try container.resolveThrows(PCASession.self, argument: PCAIdentity(1))
        #expect(try container.resolveThrows(PCASession.self, argument: PCAIdentity(1)) === one)
        #expect(try container.resolveThrows(PCASession.self, argument: PCAIdentity(2)) !== one)
    }

    @Test func namesAndArgumentTypesKeepSeparateInstancesAndThreeArgumentsCompareTogether() throws {
        let container = Container()
        let made = Counter()
        container.register(PCASession.self, name: "a") { (_, key: Int) in
            made.increment()
            return PCASession(key: "a\(key)")
        }
        .inObjectScope(.multiton)
        container.register(PCASession.self, name: "b") { (_, key: Int) in
            made.increment()
            return PCASession(key: "b\(key)")
        }
        .inObjectScope(.multiton)
        container.register(PCASession.self, name: "a") { (_, key: String) in
            made.increment()
            return PCASession(key: "a'\(key)'")
        }
        .inObjectScope(.multiton)
        container.register(PCASession.self) { (_, a: Int, b: String, c: Int) in
            made.increment()
            return PCASession(key: "\(a)\(b)\(c)")
        }
        .inObjectScope(.multiton)
        let a1 = try container.resolveThrows(PCASession.self, name: "a", argument: 1)
        let b1 = try container.resolveThrows(PCASession.self, name: "b", argument: 1)
        let a1s = try container.resolveThrows(PCASession.self, name: "a", argument: "1")
        #expect(a1 !== b1 && a1 !== a1s && b1 !== a1s)
        #expect(try container.resolveThrows(PCASession.self, name: "a", argument: 1) === a1)
        #expect(try container.resolveThrows(PCASession.self, name: "a", argument: "1") === a1s)
        let triple = try container.resolveThrows(PCASession.self, arguments: 1, "x", 2)
        #expect(try container.resolveThrows(PCASession.self, arguments: 1, "x", 2) === triple)
        #expect(try container.resolveThrows(PCASession.self, arguments: 2, "x", 1) !== triple)
        #expect(try container.resolveThrows(PCASession.self, arguments: 1, "x", 3) !== triple)
        #expect(made.count == 6)
    }

    @Test func aNonHashableArgumentAmongSeveralFailsNamingItsType() throws {
        let container = Container()
        container.register(PCASession.self) { (_, a: Int, b: PCAUnhashable, c: String) in PCASession(key: "\(a)") }
            .inObjectScope(.multiton)
        container.register(PCASession.self) { (_, a: Any) in PCASession(key: "\(a)") }
            .inObjectScope(.multiton)
        for attempt in 0..<2 {
            do {
                if attempt == 0 {
                    _ = try container.resolveThrows(PCASession.self, arguments: 1, PCAUnhashable(value: 2), "c")
                } else {
                    _ = try container.resolveThrows(PCASession.self, argument: PCAUnhashable(value: 2) as Any)
                }
                Issue.record("expected invalidUsage")
            } catch {
                guard case .invalidUsage(let message) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect(message.contains("PCAUnhashable"), "\(message)")
            }
        }
        // A failure keeps nothing: the next resolve with a Hashable value works.
        #expect(try container.resolveThrows(PCASession.self, argument: 3 as Any).key == "3")
    }

    @Test func oneInstanceWhicheverWayTheResolveReachesTheRegistration() throws {
        let parent = Container()
        parent.register(PCASession.self) { (_, key: Int) in PCASession(key: "int \(key)") }.inObjectScope(.multiton)
        parent.register(PCASession.self) { (_, key: String) in PCASession(key: "string \(key)") }
            .inObjectScope(.multiton)
        parent.register(PCASession.self) { (_, key: Int, name: String) in PCASession(key: "\(key) \(name)") }
            .inObjectScope(.multiton)
        var fromFactory: [PCASession] = []
        var fromAction: [PCASession] = []
        parent.register(PCAShared.self) { r in
            fromFactory.append(try r.resolveThrows(PCASession.self, argument: 5))
            fromFactory.append(try r.resolveThrows(PCASession.self, argument: "five"))
            fromFactory.append(try r.resolveThrows(PCASession.self, arguments: 5, "five"))
            return PCAShared()
        }
        .initCompleted { r, _ in
            fromAction.append(try r.resolveThrows(PCASession.self, argument: 5))
            fromAction.append(try r.resolveThrows(PCASession.self, argument: "five"))
            fromAction.append(try r.resolveThrows(PCASession.self, arguments: 5, "five"))
        }
        let child = Container(parent: parent)
        let view = parent.synchronize()
        let childView = child.synchronize()
        let direct = [
            try parent.resolveThrows(PCASession.self, argument: 5),
            try parent.resolveThrows(PCASession.self, argument: "five"),
            try parent.resolveThrows(PCASession.self, arguments: 5, "five"),
        ]
        let ways: [[PCASession]] = [
            [
                try view.resolveThrows(PCASession.self, argument: 5),
                try view.resolveThrows(PCASession.self, argument: "five"),
                try view.resolveThrows(PCASession.self, arguments: 5, "five"),
            ],
            [
                try child.resolveThrows(PCASession.self, argument: 5),
                try child.resolveThrows(PCASession.self, argument: "five"),
                try child.resolveThrows(PCASession.self, arguments: 5, "five"),
            ],
            [
                try childView.resolveThrows(PCASession.self, argument: 5),
                try childView.resolveThrows(PCASession.self, argument: "five"),
                try childView.resolveThrows(PCASession.self, arguments: 5, "five"),
            ],
        ]
        _ = try view.resolveThrows(PCAShared.self)
        _ = try child.resolveThrows(PCAShared.self)
        for way in ways + [fromFactory.suffix(3).map { $0 }, fromAction.suffix(3).map { $0 }] {
            #expect(way.count == 3)
            for (made, expected) in zip(way, direct) {
                #expect(made === expected, "\(made.key)")
            }
        }
        #expect(Set(direct.map(\.key)) == ["int 5", "string five", "5 five"])
    }

    @Test func initCompletedBackReferencesFindTheInstanceOfTheirOwnArguments() throws {
        let container = Container()
        let made = Counter()
        var backReferences: [(String, PCASession, PCASession?)] = []
        container.register(PCASession.self) { (_, key: String) in
            made.increment()
            return PCASession(key: key)
        }
        .inObjectScope(.multiton)
        .initCompleted { r, session in
            backReferences.append((session.key, session, try r.resolveThrows(PCASession.self, argument: session.key)))
            if session.key == "outer" {
                _ = try r.resolveThrows(PCASession.self, argument: "inner")
            }
        }
        let outer = try container.resolveThrows(PCASession.self, argument: "outer")
        let inner = try container.resolveThrows(PCASession.self, argument: "inner")
        #expect(made.count == 2)
        #expect(backReferences.count == 2)
        for (key, session, found) in backReferences {
            #expect(found === session, "\(key)")
        }
        #expect(backReferences.first { $0.0 == "outer" }?.1 === outer)
        #expect(backReferences.first { $0.0 == "inner" }?.1 === inner)
    }

    @Test func aNestedCreationOfOtherArgumentsIsKeptUnderItsOwnKey() throws {
        let container = Container()
        let log = EventLog()
        container.register(PCASession.self) { (r, key: Int) in
            if key < 3 {
                // The creation of key + 1 runs inside this one's: each is kept under its own arguments.
                _ = try r.resolveThrows(PCASession.self, argument: key + 1)
            }
            return PCASession(key: "\(key)")
        }
        .inObjectScope(.multiton)
        .onDispose { log.record($0.key) }
        let one = try container.resolveThrows(PCASession.self, argument: 1)
        #expect(one.key == "1")
        #expect(try container.resolveThrows(PCASession.self, argument: 2).key == "2")
        #expect(try container.resolveThrows(PCASession.self, argument: 3).key == "3")
        #expect(try container.resolveThrows(PCASession.self, argument: 1) === one)
        try container.dispose()
        // The innermost completed first: it is disposed of last.
        #expect(log.all == ["1", "2", "3"])
    }

    @Test func disposeEndsEveryMultitonInstanceOfEveryKindOfKeyOnce() throws {
        let container = Container()
        let log = EventLog()
        let entries = [
            container.register(PCASession.self) { (_, key: Int) in PCASession(key: "int \(key)") },
            container.register(PCASession.self) { (_, key: String) in PCASession(key: "string \(key)") },
            container.register(PCASession.self) { (_, key: PCARole) in PCASession(key: "role \(key)") },
            container.register(PCASession.self) { (_, a: Int, b: Int) in PCASession(key: "pair \(a) \(b)") },
            container.register(PCASession.self) { _ in PCASession(key: "none") },
        ]
        for entry in entries {
            entry.inObjectScope(.multiton).onDispose { log.record($0.key) }
        }
        _ = try container.resolveThrows(PCASession.self, argument: 1)
        _ = try container.resolveThrows(PCASession.self, argument: "a")
        _ = try container.resolveThrows(PCASession.self, argument: PCARole.user(1))
        _ = try container.resolveThrows(PCASession.self, arguments: 1, 2)
        _ = try container.resolveThrows(PCASession.self)
        _ = try container.resolveThrows(PCASession.self, argument: 2)
        _ = try container.resolveThrows(PCASession.self, argument: "a")
        try container.dispose()
        #expect(log.all == ["int 2", "none", "pair 1 2", "role user(1)", "string a", "int 1"])
        try container.dispose()
        #expect(log.all.count == 6)
        _ = try container.resolveThrows(PCASession.self, argument: "a")
        try container.dispose()
        #expect(log.all.count == 7)
    }
}

@Suite("PerfChangeAttack multiton concurrency", .tags(.concurrency), .hangLimit, .timeLimit(.minutes(1)))
struct PerfChangeAttackMultitonConcurrencyTests {
    @Test func eightThreadsThroughAViewGetOneInstancePerValueOfEveryKindOfKey() {
        let container = Container()
        let made = Counter()
        container.register(PCASession.self) { (_, key: String) in
            made.increment()
            return PCASession(key: key)
        }
        .inObjectScope(.multiton)
        container.register(PCASession.self) { (_, key: Int, other: String) in
            made.increment()
            return PCASession(key: "\(key) \(other)")
        }
        .inObjectScope(.multiton)
        container.register(PCASession.self) { (_, key: AnyHashable) in
            made.increment()
            return PCASession(key: "\(key)")
        }
        .inObjectScope(.multiton)
        let view = container.synchronize()
        let seen = PCAIdentities()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<40 {
                let value = (round + thread) % 4
                if let session = view.resolve(PCASession.self, argument: "s\(value)") {
                    seen.insert("s\(value)", session)
                }
                if let session = view.resolve(PCASession.self, arguments: value, "x") {
                    seen.insert("p\(value)", session)
                }
                // Equal integers of different types: one key.
                let key = round % 2 == 0 ? AnyHashable(value) : AnyHashable(UInt8(value))
                if let session = view.resolve(PCASession.self, argument: key) {
                    seen.insert("h\(value)", session)
                }
            }
        }
        #expect(made.count == 12)
        #expect(seen.counts.count == 12)
        #expect(seen.counts.values.allSatisfy { $0 == 1 })
    }

    @Test func concurrentFirstAsyncResolvesWithEqualArgumentsCreateOncePerValue() async throws {
        let container = Container()
        let made = Counter()
        let gate = Gate()
        container.registerAsync(PCASession.self) { (_, key: String) in
            made.increment()
            await gate.wait()
            return PCASession(key: key)
        }
        .inObjectScope(.multiton)
        let view = container.synchronize()
        let opening = Task {
            try await Task.sleep(for: .milliseconds(50))
            gate.open()
        }
        let results = try await withThrowingTaskGroup(of: (String, ObjectIdentifier).self) { group in
            for index in 0..<16 {
                group.addTask {
                    let key = "k" + String(index % 3)
                    let session = try await view.resolveAsync(PCASession.self, argument: key)
                    return (session.key, ObjectIdentifier(session))
                }
            }
            return try await group.reduce(into: [String: Set<ObjectIdentifier>]()) {
                $0[$1.0, default: []].insert($1.1)
            }
        }
        try await opening.value
        #expect(made.count == 3)
        #expect(results.count == 3)
        #expect(results.values.allSatisfy { $0.count == 1 })
        #expect(try await view.resolveAsync(PCASession.self, argument: "k1").key == "k1")
        #expect(made.count == 3)
    }

    @Test func concurrentAsyncResolvesWithEqualIntegersOfDifferentTypesShareOneCreation() async throws {
        let container = Container()
        let made = Counter()
        let gate = Gate()
        container.registerAsync(PCASession.self) { (_, key: AnyHashable, name: String) in
            made.increment()
            await gate.wait()
            return PCASession(key: "\(key) \(name)")
        }
        .inObjectScope(.multiton)
        let view = container.synchronize()
        let opening = Task {
            try await Task.sleep(for: .milliseconds(50))
            gate.open()
        }
        let identities = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for index in 0..<12 {
                group.addTask {
                    let keys: [AnyHashable] = [AnyHashable(7), AnyHashable(UInt8(7)), AnyHashable(7.0)]
                    let session = try await view.resolveAsync(PCASession.self, arguments: keys[index % 3], "n")
                    return ObjectIdentifier(session)
                }
            }
            return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        try await opening.value
        #expect(made.count == 1)
        #expect(identities.count == 1)
    }

    @Test func aResetWhileAnAsyncMultitonCreationIsInFlightKeepsNothingOfIt() async throws {
        let container = Container()
        let made = Counter()
        let gate = Gate()
        let log = EventLog()
        container.registerAsync(PCASession.self) { (_, key: Int) in
            let serial = made.next()
            if serial == 1 {
                await gate.wait()
            }
            return PCASession(key: "\(key) #\(serial)")
        }
        .inObjectScope(.multiton)
        .onDispose { log.record($0.key) }
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(PCASession.self, argument: 7) }
        while made.count == 0 {
            await Task.yield()
        }
        view.withContainer { $0.resetObjectScope(.multiton) }
        gate.open()
        let dropped = try await first.value
        #expect(dropped.key == "7 #1")
        let second = try await view.resolveAsync(PCASession.self, argument: 7)
        #expect(second !== dropped)
        #expect(second.key == "7 #2")
        #expect(try await view.resolveAsync(PCASession.self, argument: 7) === second)
        try await container.disposeAsync()
        #expect(log.all.contains("7 #2"))
        #expect(log.all.filter { $0 == "7 #2" }.count == 1)
        #expect(log.all.filter { $0 == "7 #1" }.count <= 1)
    }

    @Test func disposeAsyncDuringAnAsyncMultitonCreationDisposesItOnce() async throws {
        let container = Container()
        let gate = Gate()
        let started = Counter()
        let log = EventLog()
        let entry = container.registerAsync(PCASession.self) { (_, key: String) in
            started.increment()
            await gate.wait()
            return PCASession(key: key)
        }
        .inObjectScope(.multiton)
        .onDispose { log.record("sync \($0.key)") }
        .onDisposeAsync { log.record("async \($0.key)") }
        container.forward(AnyObject.self, name: "alias", to: entry)
        let view = container.synchronize()
        let a = Task { try await view.resolveAsync(PCASession.self, argument: "a") }
        let b = Task { try await view.resolveAsync(PCASession.self, argument: "b") }
        while started.count < 2 {
            await Task.yield()
        }
        let opening = Task {
            try await Task.sleep(for: .milliseconds(20))
            gate.open()
        }
        try await container.disposeAsync()
        try await opening.value
        _ = try await a.value
        _ = try await b.value
        #expect(log.all.sorted() == ["async a", "async b", "sync a", "sync b"])
        try await container.disposeAsync()
        #expect(log.all.count == 4)
    }
}

// MARK: - resolveAll

@Suite("PerfChangeAttack resolveAll", .tags(.engine), .hangLimit, .timeLimit(.minutes(1)))
struct PerfChangeAttackResolveAllTests {
    @Test func aGrandparentParentAndChildWithCollidingNames() throws {
        let grandparent = Container()
        grandparent.register(PCAPlugin.self) { _ in PCANamed(name: "gp nil") }
        grandparent.register(PCAPlugin.self, name: "x") { _ in PCANamed(name: "gp x") }
        grandparent.register(PCAPlugin.self, name: "y") { _ in PCANamed(name: "gp y") }
        let parent = Container(parent: grandparent)
        parent.register(PCAPlugin.self, name: "x") { _ in PCANamed(name: "p x") }
        parent.register(PCAPlugin.self, name: "z") { _ in PCANamed(name: "p z") }
        parent.register(PCAPlugin.self, name: "y") { (_, a: Int) in PCANamed(name: "p y \(a)") }
        let child = Container(parent: parent)
        child.register(PCAPlugin.self, name: "y") { _ in PCANamed(name: "c y") }
        child.register(PCAPlugin.self) { _ in PCANamed(name: "c nil") }
        child.register(PCAPlugin.self, name: "w") { _ in PCANamed(name: "c w") }
        #expect(child.resolveAll(PCAPlugin.self).map(\.name) == ["c nil", "p x", "c y", "p z", "c w"])
        #expect(parent.resolveAll(PCAPlugin.self).map(\.name) == ["gp nil", "p x", "gp y", "p z"])
        #expect(
            try child.synchronize().resolveAllThrows(PCAPlugin.self).map(\.name) == [
                "c nil", "p x", "c y", "p z", "c w",
            ]
        )
        // The first table with registrations takes arguments: its argument-free ones are still in order.
        let lone = Container(parent: Container())
        lone.register(PCAPlugin.self, name: "a") { (_, a: Int) in PCANamed(name: "a \(a)") }
        lone.register(PCAPlugin.self, name: "b") { _ in PCANamed(name: "b") }
        lone.register(PCAPlugin.self, name: "a") { _ in PCANamed(name: "a") }
        #expect(lone.resolveAll(PCAPlugin.self).map(\.name) == ["b", "a"])
    }

    @Test func aFactoryThatEmptiesTheChildFallsBackToTheParentsRegistration() throws {
        let parent = Container()
        let child = Container(parent: parent)
        parent.register(PCAPlugin.self, name: "a") { _ in
            child.removeAll()
            return PCANamed(name: "a")
        }
        parent.register(PCAPlugin.self, name: "b") { _ in PCANamed(name: "parent b") }
        child.register(PCAPlugin.self, name: "b") { _ in PCANamed(name: "child b") }
        child.register(PCAPlugin.self, name: "c") { _ in PCANamed(name: "child c") }
        #expect(child.resolveAll(PCAPlugin.self).map(\.name) == ["a", "parent b"])
        #expect(child.resolveAll(PCAPlugin.self).map(\.name) == ["a", "parent b"])
    }

    @Test func aFactoryThatSwapsOneRegistrationForAnotherKeepsTheCountButNotTheEntry() throws {
        let container = Container()
        let other = container.register(PCAOther.self) { _ in PCAOther() }
        container.register(PCAPlugin.self, name: "a") { _ in
            // Removes "c" and adds "d": the table's count is unchanged.
            container.removeAll()
            container.register(PCAPlugin.self, name: "b") { _ in PCANamed(name: "new b") }
            container.register(PCAPlugin.self, name: "d") { _ in PCANamed(name: "d") }
            container.register(PCAPlugin.self, name: "a") { _ in PCANamed(name: "new a") }
            return PCANamed(name: "a")
        }
        container.register(PCAPlugin.self, name: "b") { _ in PCANamed(name: "old b") }
        container.register(PCAPlugin.self, name: "c") { _ in PCANamed(name: "old c") }
        _ = other
        #expect(container.resolveAll(PCAPlugin.self).map(\.name) == ["a", "new b"])
        #expect(container.resolveAll(PCAPlugin.self).map(\.name) == ["new b", "d", "new a"])
    }

    @Test func aFactoryThatForwardsALaterKeyToAnotherRegistration() throws {
        let container = Container()
        let other = container.register(PCAOther.self) { _ in PCAOther() }.inObjectScope(.container)
        container.register(PCAPlugin.self, name: "a") { _ in
            container.forward(PCAPlugin.self, name: "b", to: other)
            return PCANamed(name: "a")
        }
        container.register(PCAPlugin.self, name: "b") { _ in PCANamed(name: "b") }
        let all = container.resolveAll(PCAPlugin.self)
        #expect(all.map(\.name) == ["a", "other"])
        #expect(all.last === container.resolve(PCAOther.self))
    }

    @Test func forwardedKeysInTheChildAndToAParentEntry() throws {
        let parent = Container()
        let other = parent.register(PCAOther.self) { _ in PCAOther() }.inObjectScope(.container)
        let notAPlugin = parent.register(PCANotAPlugin.self) { _ in PCANotAPlugin() }
        parent.register(PCAPlugin.self, name: "p") { _ in PCANamed(name: "p") }
        let child = Container(parent: parent)
        child.forward(PCAPlugin.self, name: "fw", to: other)
        child.forward(PCAPlugin.self, name: "bad", to: notAPlugin)
        child.register(PCAPlugin.self, name: "c") { _ in PCANamed(name: "c") }
        let all = child.resolveAll(PCAPlugin.self)
        #expect(all.map(\.name) == ["p", "other", "c"])
        #expect(all[1] === parent.resolve(PCAOther.self))
        do {
            _ = try child.resolveAllThrows(PCAPlugin.self)
            Issue.record("expected the forwarded key that is not a plugin to fail")
        } catch {
            guard case .typeMismatch = error else {
                Issue.record("unexpected \(error)")
                return
            }
        }
    }

    @Test func oneGraphAcrossTheRegistrationsAndANestedResolveAll() throws {
        let container = Container()
        container.register(PCAShared.self) { _ in PCAShared() }.inObjectScope(.graph)
        var nested: [[any PCAExistentialPlugin]] = []
        container.register(PCAPlugin.self, name: "a") { r in
            PCANamed(name: "a", shared: try r.resolveThrows(PCAShared.self))
        }
        container.register(PCAPlugin.self, name: "b") { r in
            nested.append(try r.resolveAllThrows((any PCAExistentialPlugin).self))
            return PCANamed(name: "b", shared: try r.resolveThrows(PCAShared.self))
        }
        container.register(PCAExistentialPlugin.self, name: "x") { r in
            PCAExistentialPluginValue(shared: try r.resolveThrows(PCAShared.self))
        }
        let first = try container.resolveAllThrows(PCAPlugin.self).compactMap { $0 as? PCANamed }
        #expect(first.count == 2)
        #expect(first[0].shared != nil && first[0].shared === first[1].shared)
        #expect((nested.first?.first as? PCAExistentialPluginValue)?.shared === first[0].shared)
        let second = container.resolveAll(PCAPlugin.self).compactMap { $0 as? PCANamed }
        #expect(second[0].shared !== first[0].shared, "a new graph per call")
    }

    @Test func aRecursiveResolveAllOfItsOwnTypeIsACycleAndTheOthersStand() {
        let container = Container()
        container.register(PCAPlugin.self, name: "a") { _ in PCANamed(name: "a") }
        container.register(PCAPlugin.self, name: "self") { r in
            PCANamed(name: "self \(try r.resolveAllThrows(PCAPlugin.self).count)")
        }
        container.register(PCAPlugin.self, name: "c") { _ in PCANamed(name: "c") }
        let all = container.resolveAll(PCAPlugin.self).map(\.name)
        // Whether the cycle fails only "self" or the call as a whole, "a" and "c" are not duplicated.
        #expect(all.filter { $0 == "a" }.count <= 1)
        #expect(!all.contains { $0.hasPrefix("self") })
        #expect(throws: DIError.self) { try container.resolveAllThrows(PCAPlugin.self) }
        // The container is usable afterwards.
        #expect(container.resolveAll(PCAPlugin.self).count == all.count)
        #expect(container.resolve(PCAPlugin.self, name: "a")?.name == "a")
    }

    @Test func noRegistrationsValueTypesExistentialsAndScopes() throws {
        let container = Container()
        #expect(container.resolveAll(PCAValue.self).isEmpty)
        #expect(try container.resolveAllThrows(PCAValue.self).isEmpty)
        #expect(try container.synchronize().resolveAllThrows(PCAValue.self).isEmpty)
        let made = Counter()
        container.register(PCAValue.self, name: "one") { _ in PCAValue(number: 1) }
        container.register(PCAValue.self, name: "kept") { _ in PCAValue(number: 100 + made.next()) }
            .inObjectScope(.container)
        container.register(PCAValue.self) { _ in PCAValue(number: 0) }
        #expect(
            container.resolveAll(PCAValue.self) == [PCAValue(number: 1), PCAValue(number: 101), PCAValue(number: 0)]
        )
        #expect(
            container.resolveAll(PCAValue.self) == [PCAValue(number: 1), PCAValue(number: 101), PCAValue(number: 0)]
        )
        container.register((any PCAExistential).self, name: "x") { _ in PCAExistentialValue(number: 3) }
        container.register((any PCAExistential).self, name: "y") { _ in PCAExistentialValue(number: 4) }
        #expect(container.resolveAll((any PCAExistential).self).map(\.number) == [3, 4])
        #expect(container.synchronize().resolveAll((any PCAExistential).self).map(\.number) == [3, 4])
        // String, a value type with a buffer, through an Optional-free path.
        container.register(String.self, name: "s") { _ in String(repeating: "x", count: 100) }
        #expect(container.resolveAll(String.self) == [String(repeating: "x", count: 100)])
    }

    @Test func keptInstancesAreTheOnesResolveGivesAndAResetMidLoopIsSeen() throws {
        let container = Container()
        let log = EventLog()
        let kept = container.register(PCANamed.self) { _ in PCANamed(name: "multiton") }.inObjectScope(.multiton)
        container.register(PCAPlugin.self, name: "reset") { _ in
            container.resetObjectScope(.container)
            return PCANamed(name: "reset")
        }
        container.register(PCAPlugin.self, name: "c") { _ in PCANamed(name: "c") }
            .inObjectScope(.container)
            .onDispose { log.record($0.name) }
        container.forward(PCAPlugin.self, name: "m", to: kept)
        let oldC = try container.resolveThrows(PCAPlugin.self, name: "c")
        let all = try container.resolveAllThrows(PCAPlugin.self)
        #expect(all.map(\.name) == ["reset", "c", "multiton"])
        #expect(all[1] !== oldC, "the reset dropped the earlier instance before c was resolved")
        #expect(all[1] === container.resolve(PCAPlugin.self, name: "c"))
        #expect(all[2] === container.resolve(PCANamed.self))
        #expect(log.all == ["c"])
    }

    @Test func failuresAreSkippedOrReportedAndTheArrayHoldsTheRest() {
        let container = Container()
        let log = EventLog()
        for index in 0..<20 {
            container.register(PCAPlugin.self, name: "p\(index)") { _ in
                if index % 3 == 1 {
                    throw PCAFailure()
                }
                log.record("made \(index)")
                return PCANamed(name: "p\(index)")
            }
        }
        let all = container.resolveAll(PCAPlugin.self)
        #expect(all.map(\.name) == (0..<20).filter { $0 % 3 != 1 }.map { "p\($0)" })
        #expect(throws: DIError.self) { try container.resolveAllThrows(PCAPlugin.self) }
    }
}

private protocol PCAExistentialPlugin {}

private final class PCAExistentialPluginValue: PCAExistentialPlugin, PCAPlugin {
    let name = "existential"
    let shared: PCAShared
    init(shared: PCAShared) { self.shared = shared }
}

@Suite("PerfChangeAttack resolveAll concurrency", .tags(.concurrency), .hangLimit, .timeLimit(.minutes(1)))
struct PerfChangeAttackResolveAllConcurrencyTests {
    @Test func eightThreadsResolveAllThroughChildViewsWhileRegistering() {
        let app = Container()
        app.register(PCAPlugin.self, name: "app") { _ in PCANamed(name: "app") }.inObjectScope(.container)
        let shared = app.synchronize()
        let seen = PCAIdentities()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            let child = shared.makeChild { child in
                child.register(PCAPlugin.self, name: "child") { _ in PCANamed(name: "child \(thread)") }
                    .inObjectScope(.container)
            }
            let view = child.synchronize()
            for round in 0..<50 {
                let all = view.resolveAll(PCAPlugin.self)
                if all.count == 2 {
                    seen.insert("app", all[0])
                    seen.insert("child \(thread)", all[1])
                } else {
                    seen.insert("bad \(all.map(\.name))", PCAShared())
                }
                if round % 10 == 0 {
                    view.withContainer { container in
                        container.register(PCAPlugin.self, name: "child") { _ in PCANamed(name: "child \(thread)") }
                            .inObjectScope(.container)
                    }
                    seen.insert("reregistered \(thread) \(round)", PCAShared())
                }
            }
        }
        let counts = seen.counts
        #expect(counts["app"] == 1)
        #expect(counts.keys.filter { $0.hasPrefix("bad") }.isEmpty)
        // The first instance and one after each of the five re-registrations.
        for thread in 0..<8 {
            #expect(counts["child \(thread)"] == 6)
        }
    }
}

// MARK: - Disposal

@Suite("PerfChangeAttack disposal", .tags(.engine), .hangLimit, .timeLimit(.minutes(1)))
struct PerfChangeAttackDisposalTests {
    @Test func aMultitonEntryReachedUnderThreeKeysDisposesEachInstanceOnce() throws {
        let container = Container()
        let log = EventLog()
        let entry = container.register(PCANamed.self) { (_, key: Int) in PCANamed(name: "\(key)") }
            .inObjectScope(.multiton)
            .onDispose { log.record($0.name) }
        container.forward(PCAPlugin.self, to: entry)
        container.forward(AnyObject.self, name: "alias", to: entry)
        let one = try container.resolveThrows(PCANamed.self, argument: 1)
        #expect(try container.resolveThrows(PCAPlugin.self, argument: 1) === one)
        _ = try container.resolveThrows(AnyObject.self, name: "alias", argument: 2)
        try container.dispose()
        #expect(log.all == ["2", "1"])
        try container.dispose()
        #expect(log.all == ["2", "1"])
    }

    @Test func aChildForwardingToItsParentsEntryDoesNotEndIt() throws {
        let parent = Container()
        let log = EventLog()
        let entry = parent.register(PCANamed.self) { _ in PCANamed(name: "parent") }
            .inObjectScope(.container)
            .onDispose { log.record($0.name) }
        let child = Container(parent: parent)
        child.forward(PCAPlugin.self, to: entry)
        child.register(PCAShared.self) { _ in PCAShared() }.inObjectScope(.container).onDispose { _ in
            log.record("child")
        }
        let instance = try child.resolveThrows(PCAPlugin.self)
        _ = try child.resolveThrows(PCAShared.self)
        try child.dispose()
        #expect(log.all == ["child"])
        #expect(try child.resolveThrows(PCAPlugin.self) === instance)
        try parent.dispose()
        #expect(log.all == ["child", "parent"])
        try child.dispose()
        #expect(log.all == ["child", "parent"])
    }

    @Test func handlersThatResolveRegisterRemoveOrDisposeAgain() throws {
        let container = Container()
        let log = EventLog()
        let made = Counter()
        container.register(PCANamed.self, name: "resolver") { _ in PCANamed(name: "resolver \(made.next())") }
            .inObjectScope(.container)
            .onDispose { named in
                log.record("end \(named.name)")
                // Only the first: a handler that always resolves and disposes again never ends.
                guard named.name == "resolver 1" else { return }
                // Resolves again from the handler: a new instance, kept for the next dispose.
                if let again = container.resolve(PCANamed.self, name: "resolver") {
                    log.record("again \(again.name)")
                }
                // Disposes again from the handler: nothing is ended twice.
                do {
                    try container.dispose()
                } catch {
                    log.record("nested failed")
                }
            }
        container.register(PCANamed.self, name: "register") { _ in PCANamed(name: "register") }
            .inObjectScope(.container)
            .onDispose { named in
                log.record("end \(named.name)")
                container.register(PCANamed.self, name: "late") { _ in PCANamed(name: "late") }
                    .inObjectScope(.container)
                    .onDispose { log.record("end \($0.name)") }
            }
        _ = container.resolve(PCANamed.self, name: "register")
        _ = container.resolve(PCANamed.self, name: "resolver")
        try container.dispose()
        let first = log.all
        #expect(first.filter { $0 == "end resolver 1" }.count == 1, "\(first)")
        #expect(first.filter { $0 == "end register" }.count == 1, "\(first)")
        #expect(!first.contains("nested failed"))
        #expect(container.resolve(PCANamed.self, name: "late")?.name == "late")
        try container.dispose()
        let second = Array(log.all.dropFirst(first.count))
        #expect(second.contains("end late"))
        #expect(second.filter { $0.hasPrefix("end resolver") }.count <= 1, "\(second)")
    }

    @Test func aHandlerThatRemovesEverythingDoesNotStopTheOthers() throws {
        let container = Container()
        let log = EventLog()
        for index in 0..<4 {
            container.register(PCANamed.self, name: "n\(index)") { _ in PCANamed(name: "n\(index)") }
                .inObjectScope(.container)
                .onDispose { named in
                    log.record(named.name)
                    if named.name == "n3" {
                        container.removeAll()
                    }
                }
        }
        for index in 0..<4 {
            _ = container.resolve(PCANamed.self, name: "n\(index)")
        }
        try container.dispose()
        #expect(log.all == ["n3", "n2", "n1", "n0"])
        #expect(container.resolve(PCANamed.self, name: "n0") == nil)
    }

    @Test func aFactoryThatDisposesItsOwnForwardedRegistrationEndsTheDroppedInstanceOnce() throws {
        let container = Container()
        let log = EventLog()
        let made = Counter()
        let entry = container.register(PCANamed.self) { _ in
            let serial = made.next()
            if serial == 1 {
                try container.dispose()
            }
            return PCANamed(name: "#\(serial)")
        }
        .inObjectScope(.container)
        .onDispose { log.record($0.name) }
        container.forward(PCAPlugin.self, to: entry)
        container.forward(PCAPlugin.self, name: "alias", to: entry)
        let first = try container.resolveThrows(PCAPlugin.self, name: "alias")
        #expect(first.name == "#1")
        #expect(log.all == ["#1"], "the dropped instance is ended once")
        let second = try container.resolveThrows(PCANamed.self)
        #expect(second.name == "#2")
        try container.dispose()
        #expect(log.all == ["#1", "#2"])
    }
}

private let pcaIsolations = EventLog()

/// Records the isolation it runs in: a `nonisolated(nonsending)` function runs in its caller's.
nonisolated(nonsending) private func pcaRecordIsolation(_ session: PCASession) async {
    pcaIsolations.record("\(session.key) \((#isolation).map { "\(ObjectIdentifier($0))" } ?? "none")")
}

/// State only its actor touches, which handlers run in its isolation may touch.
private actor PCAOwner {
    var events: [String] = []
    var isolations: [Bool] = []

    func record(_ event: String) { events.append(event) }

    func run() async throws -> ([String], [String]) {
        let container = Container()
        container.register(PCASession.self, name: "sync") { _ in PCASession(key: "sync") }
            .inObjectScope(.container)
            .onDispose { session in
                self.assumeIsolated { owner in owner.events.append("sync \(session.key)") }
            }
        container.register(PCASession.self, name: "async") { _ in PCASession(key: "async") }
            .inObjectScope(.container)
            .onDisposeAsync(pcaRecordIsolation)
            .onDispose { session in
                self.assumeIsolated { owner in owner.events.append("sync after \(session.key)") }
            }
        _ = container.resolve(PCASession.self, name: "sync")
        _ = container.resolve(PCASession.self, name: "async")
        // The control: the same function called directly from here sees this actor.
        await pcaRecordIsolation(PCASession(key: "control"))
        try await container.disposeAsync()
        let me = ObjectIdentifier(self)
        return (
            events,
            pcaIsolations.all.map { $0.hasSuffix("\(me)") ? $0.replacingOccurrences(of: "\(me)", with: "owner") : $0 }
        )
    }

    func noteIsolation(_ value: Bool) { isolations.append(value) }
}

@Suite("PerfChangeAttack disposal concurrency", .tags(.concurrency), .hangLimit, .timeLimit(.minutes(1)))
struct PerfChangeAttackDisposalConcurrencyTests {
    @Test func disposeAsyncFromAnActorRunsEveryHandlerOnIt() async throws {
        let (events, isolations) = try await PCAOwner().run()
        #expect(events == ["sync after async", "sync sync"])
        #expect(isolations == ["control owner", "async owner"])
    }

    @Test @MainActor func disposeAsyncFromTheMainActorRunsEveryHandlerOnIt() async throws {
        let container = Container()
        var onMain: [String] = []
        container.register(PCASession.self) { _ in PCASession(key: "x") }
            .inObjectScope(.container)
            .onDispose { _ in MainActor.assumeIsolated { onMain.append("sync true") } }
            .onDisposeAsync { _ in
                let isolated = (#isolation).map { ObjectIdentifier($0) == ObjectIdentifier(MainActor.shared) } ?? false
                await MainActor.run { onMain.append("async \(isolated)") }
            }
        _ = container.resolve(PCASession.self)
        try await container.disposeAsync()
        #expect(onMain == ["sync true", "async true"])
    }

    @Test func childrenDisposedWhileTheParentResolvesThroughAView() {
        let parent = Container()
        let log = EventLog()
        parent.register(PCAShared.self) { _ in PCAShared() }.inObjectScope(.container).onDispose { _ in
            log.record("parent")
        }
        parent.register(PCASession.self) { (_, key: Int) in PCASession(key: "\(key)") }
            .inObjectScope(.multiton)
            .onDispose { _ in log.record("parent multiton") }
        let view = parent.synchronize()
        let seen = PCAIdentities()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<30 {
                if thread % 2 == 0 {
                    let child = view.makeChild { child in
                        child.register(PCANamed.self) { r in
                            PCANamed(name: "c", shared: try r.resolveThrows(PCAShared.self))
                        }
                        .inObjectScope(.container)
                        .onDispose { _ in log.record("child") }
                        child.register(PCASession.self) { (_, key: Int) in PCASession(key: "child \(key)") }
                            .inObjectScope(.multiton)
                            .onDispose { _ in log.record("child multiton") }
                    }
                    let childView = child.synchronize()
                    if let named = childView.resolve(PCANamed.self), let shared = named.shared {
                        seen.insert("shared", shared)
                    }
                    _ = childView.resolve(PCASession.self, argument: round % 3)
                    try? child.dispose()
                } else {
                    if let shared = view.resolve(PCAShared.self) {
                        seen.insert("shared", shared)
                    }
                    if let session = view.resolve(PCASession.self, argument: round % 3) {
                        seen.insert("session \(round % 3)", session)
                    }
                }
            }
        }
        let events = log.all
        #expect(!events.contains("parent"))
        #expect(!events.contains("parent multiton"))
        #expect(events.filter { $0 == "child" }.count == 4 * 30)
        #expect(events.filter { $0 == "child multiton" }.count == 4 * 30)
        #expect(seen.counts.values.allSatisfy { $0 == 1 })
    }
}

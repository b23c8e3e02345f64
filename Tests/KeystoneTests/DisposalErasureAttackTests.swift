import Dispatch
import Foundation
import Testing

@testable import Keystone

// Attacks on disposal once its handlers are erased to take the instance as `Any` (`DisposalHandlers`),
// the instances are kept as `Any` (`HeldInstance.boxedInstance`) and a creation in flight is ended from
// its flight's outcome: every kind of service type reaches its handlers as itself, once; every dropping
// call (dispose, reset, re-registration, removal, release, a failed resolve, a drop mid-creation) runs
// them once; instances without handlers live until every handler ran; creations in flight; threads.

/// An object with an id, that records its end.
private final class Parcel: @unchecked Sendable {
    // @unchecked: `dependency` is set once, before the box is shared.
    let id: Int
    private let ended: EventLog?
    weak var dependency: Parcel?

    init(_ id: Int, ended: EventLog? = nil) {
        self.id = id
        self.ended = ended
    }

    deinit {
        ended?.record("deinit \(id)")
    }
}

/// A value-type service.
private struct Ticket: Hashable, Sendable {
    let id: Int
}

/// An enum service.
private enum Mood: Equatable, Sendable {
    case calm
    case loud(Int)
}

private protocol Named {
    var name: String { get }
}

private protocol Numbered {
    var number: Int { get }
}

private struct Badge: Named, Numbered, Sendable {
    let name: String
    let number: Int
}

private final class Crate<Content>: @unchecked Sendable {
    // @unchecked: `content` is never changed.
    let content: Content

    init(_ content: Content) {
        self.content = content
    }
}

/// An object whose deinitializer runs `body`.
private final class Farewell: @unchecked Sendable {
    // @unchecked: `body` is never changed.
    let id: Int
    let body: () -> Void

    init(_ id: Int, _ body: @escaping () -> Void) {
        self.id = id
        self.body = body
    }

    deinit {
        body()
    }
}

private struct HandlerFailed: Error, Equatable {
    let label: String
}

/// The labels of the handler failures in a `disposalFailed` error, in the order reported.
private func failedLabels(_ error: DIError) -> [String] {
    guard case .disposalFailed(let failures) = error else { return ["not disposalFailed: \(error)"] }
    return failures.map { failure in
        guard case .factoryFailed(_, _, let underlying) = failure, let failed = underlying as? HandlerFailed else {
            return "unexpected: \(failure)"
        }
        return failed.label
    }
}

/// The name of `type` as written in source: an optimized build prints a private type with its discriminator.
private func shown(_ type: Any.Type) -> String {
    String(describing: type).replacing(/\((\w+) in _[0-9A-F]+\)/) { $0.1 }
}

/// A description of an object that tells it apart from every other live object.
private func identity(_ object: AnyObject) -> String {
    "\(shown(type(of: object)))@\(UInt(bitPattern: ObjectIdentifier(object).hashValue))"
}

/// Registers `make` as `type` in `.container`, and again with an `Int` argument in `.multiton`, each with a
/// synchronous and an asynchronous handler that record `describe` of what they receive; checks that
/// `dispose()` and `disposeAsync()` hand each handler exactly what the resolve returned, once, and that
/// `describe` of it starts with `typeName` (what `type(of:)` says inside the handler).
private func expectHandlersSee<S>(
    _ type: S.Type,
    typeName: String,
    make: @escaping @Sendable () -> S,
    describe: @escaping @Sendable (S) -> String,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let container = Container()
    let seen = EventLog()
    container.register(type) { _ in make() }
        .inObjectScope(.container)
        .onDispose { seen.record("sync " + describe($0)) }
        .onDisposeAsync { seen.record("async " + describe($0)) }
    let first = try describe(container.resolveThrows(type))
    #expect(first.hasPrefix(typeName), "\(first)", sourceLocation: sourceLocation)
    try container.dispose()
    #expect(seen.all == ["sync \(first)"], sourceLocation: sourceLocation)
    let second = try describe(container.resolveThrows(type))
    try await container.disposeAsync()
    try container.dispose()
    #expect(seen.all == ["sync \(first)", "sync \(second)", "async \(second)"], sourceLocation: sourceLocation)

    let multiton = Container()
    let seenByArguments = EventLog()
    multiton.register(type) { (_, _: Int) in make() }
        .inObjectScope(.multiton)
        .onDispose { seenByArguments.record("sync " + describe($0)) }
        .onDisposeAsync { seenByArguments.record("async " + describe($0)) }
    var made: [String] = []
    for argument in 1...3 {
        made.append(try describe(multiton.resolveThrows(type, argument: argument)))
    }
    try await multiton.disposeAsync()
    try await multiton.disposeAsync()
    let expected = made.flatMap { ["sync \($0)", "async \($0)"] }
    #expect(seenByArguments.all.sorted() == expected.sorted(), sourceLocation: sourceLocation)
    for description in made {
        #expect(description.hasPrefix(typeName), "\(description)", sourceLocation: sourceLocation)
    }
}

@Suite("Disposal erasure attacks", .tags(.engine))
struct DisposalErasureAttackTests {
    // MARK: - Every kind of service type

    @Test("Classes, structs, enums, generic classes and metatypes reach their handlers as themselves, once")
    func concreteServiceTypes() async throws {
        let serial = Counter()
        try await expectHandlersSee(
            Parcel.self,
            typeName: "Parcel@",
            make: { Parcel(serial.next()) },
            describe: { identity($0) + " \($0.id)" }
        )
        try await expectHandlersSee(
            Ticket.self,
            typeName: "Ticket ",
            make: { Ticket(id: serial.next()) },
            describe: { "\(shown(type(of: $0))) \($0.id)" }
        )
        try await expectHandlersSee(
            Mood.self,
            typeName: "Mood ",
            make: { .loud(serial.next()) },
            describe: { "\(shown(type(of: $0))) \($0)" }
        )
        try await expectHandlersSee(
            Mood.self,
            typeName: "Mood calm",
            make: { .calm },
            describe: { "\(shown(type(of: $0))) \($0)" }
        )
        try await expectHandlersSee(
            Crate<Int>.self,
            typeName: "Crate<Int>@",
            make: { Crate(serial.next()) },
            describe: { identity($0) + " \($0.content)" }
        )
        try await expectHandlersSee(
            Crate<Int?>.self,
            typeName: "Crate<Optional<Int>>@",
            make: { Crate(nil) },
            describe: { identity($0) + " \(String(describing: $0.content))" }
        )
        try await expectHandlersSee(
            Any.Type.self,
            typeName: "Parcel",
            make: { Parcel.self },
            describe: { "\(shown($0)) \($0 == Parcel.self)" }
        )
    }

    @Test("Any, AnyObject, existentials and compositions reach their handlers holding the instance itself")
    func existentialServiceTypes() async throws {
        let serial = Counter()
        try await expectHandlersSee(
            Any.self,
            typeName: "Parcel@",
            make: { Parcel(serial.next()) },
            describe: { value in
                guard let box = value as? Parcel else { return "not a Parcel: \(shown(type(of: value)))" }
                return identity(box) + " \(shown(type(of: value))) \(identity(value as AnyObject))"
            }
        )
        try await expectHandlersSee(
            Any.self,
            typeName: "Ticket ",
            make: { Ticket(id: serial.next()) },
            describe: { value in "\(shown(type(of: value))) \((value as? Ticket)?.id ?? -1)" }
        )
        // An `Any` holding an empty optional: the handler must see the optional, not "no instance".
        try await expectHandlersSee(
            Any.self,
            typeName: "Optional<Int> nil true",
            make: { Int?.none as Any },
            describe: { value in "\(shown(type(of: value))) \(value) \(value is Int?)" }
        )
        try await expectHandlersSee(
            Any.self,
            typeName: "Optional<Ticket> Optional(",
            make: { Ticket?.some(Ticket(id: serial.next())) as Any },
            describe: { value in "\(shown(type(of: value))) \(value)" }
        )
        try await expectHandlersSee(
            AnyObject.self,
            typeName: "Parcel@",
            make: { Parcel(serial.next()) },
            describe: { identity($0) + " \(($0 as? Parcel)?.id ?? -1)" }
        )
        try await expectHandlersSee(
            (any Named).self,
            typeName: "Badge ",
            make: { Badge(name: "b\(serial.next())", number: 0) },
            describe: { "\(shown(type(of: $0))) \($0.name) \($0 is Badge)" }
        )
        try await expectHandlersSee(
            (any Named & Numbered).self,
            typeName: "Badge ",
            make: { Badge(name: "c", number: serial.next()) },
            describe: { "\(shown(type(of: $0))) \($0.name) \($0.number)" }
        )
        try await expectHandlersSee(
            (any Named & Sendable).self,
            typeName: "Badge ",
            make: { Badge(name: "d\(serial.next())", number: 1) },
            describe: { "\(shown(type(of: $0))) \($0.name)" }
        )
    }

    @Test("Optional services, nested optionals and empty ones, reach their handlers unwrapped exactly once")
    func optionalServiceTypes() async throws {
        let serial = Counter()
        try await expectHandlersSee(
            Int?.self,
            typeName: "Optional<Int> nil",
            make: { nil },
            describe: { "\(shown(type(of: $0))) \(String(describing: $0)) \($0 == nil)" }
        )
        try await expectHandlersSee(
            Int?.self,
            typeName: "Optional<Int> Optional(",
            make: { serial.next() },
            describe: { "\(shown(type(of: $0))) \(String(describing: $0))" }
        )
        try await expectHandlersSee(
            Int??.self,
            typeName: "Optional<Optional<Int>> Optional(nil) false",
            make: { .some(nil) },
            describe: { "\(shown(type(of: $0))) \(String(describing: $0)) \($0 == nil)" }
        )
        try await expectHandlersSee(
            Int??.self,
            typeName: "Optional<Optional<Int>> nil true",
            make: { nil },
            describe: { "\(shown(type(of: $0))) \(String(describing: $0)) \($0 == nil)" }
        )
        try await expectHandlersSee(
            Parcel?.self,
            typeName: "Optional<Parcel> Parcel@",
            make: { Parcel(serial.next()) },
            describe: { "\(shown(type(of: $0))) " + ($0.map { identity($0) } ?? "nil") }
        )
        try await expectHandlersSee(
            Parcel?.self,
            typeName: "Optional<Parcel> nil",
            make: { nil },
            describe: { "\(shown(type(of: $0))) " + ($0.map { identity($0) } ?? "nil") }
        )
        try await expectHandlersSee(
            (any Named)?.self,
            typeName: "Optional<",
            make: { Badge(name: "e", number: serial.next()) },
            describe: { value in
                "\(shown(type(of: value))) " + (value.map { "\(shown(type(of: $0))) \($0.name)" } ?? "nil")
            }
        )
        try await expectHandlersSee(
            Any?.self,
            typeName: "Optional<Any> Optional(nil)",
            make: { .some(Int?.none as Any) },
            describe: { "\(shown(type(of: $0))) \(String(describing: $0))" }
        )
    }

    @Test("Tuples and functions reach their handlers as themselves, once")
    func structuralServiceTypes() async throws {
        let serial = Counter()
        try await expectHandlersSee(
            (Int, String).self,
            typeName: "(Int, String) ",
            make: { (serial.next(), "t") },
            describe: { "\(shown(type(of: $0))) \($0.0) \($0.1)" }
        )
        try await expectHandlersSee(
            (Parcel, Ticket?).self,
            typeName: "(Parcel, Optional<Ticket>) Parcel@",
            make: { (Parcel(serial.next()), nil) },
            describe: { "\(shown(type(of: $0))) \(identity($0.0)) \(String(describing: $0.1))" }
        )
        try await expectHandlersSee(
            ((Int) -> Int).self,
            typeName: "(Int) -> Int ",
            make: {
                let offset = serial.next()
                return { $0 + offset }
            },
            describe: { "\(shown(type(of: $0))) \($0(1000))" }
        )
        try await expectHandlersSee(
            (@Sendable () throws -> String).self,
            typeName: "@Sendable () throws -> String f",
            make: {
                let id = serial.next()
                return { "f\(id)" }
            },
            describe: { "\(shown(type(of: $0))) \((try? $0()) ?? "threw")" }
        )
    }

    // MARK: - Multiton arguments, order, errors, lifetimes

    @Test(".multiton with several argument values and arities: each instance ends once, with its own handlers")
    func multitonArities() throws {
        let container = Container()
        let serial = Counter()
        let ended = EventLog()
        var made: [String: Int] = [:]
        container.register(Parcel.self) { (_, a: Int) in Parcel(serial.next()) }
            .inObjectScope(.multiton)
            .onDispose { ended.record("one \($0.id)") }
        container.register(Parcel.self) { (_, a: Int, b: String) in Parcel(serial.next()) }
            .inObjectScope(.multiton)
            .onDispose { ended.record("two \($0.id)") }
        container.register(Parcel.self) { (_, a: Int, b: String, c: Ticket?) in Parcel(serial.next()) }
            .inObjectScope(.multiton)
            .onDispose { ended.record("three \($0.id)") }
            .onDispose { ended.record("three again \($0.id)") }
        for value in [1, 2, 1, 3] {
            made["one \(value)"] = try container.resolveThrows(Parcel.self, argument: value).id
            made["two \(value)"] = try container.resolveThrows(Parcel.self, arguments: value, "x").id
            made["three \(value)"] = try container.resolveThrows(Parcel.self, arguments: value, "x", Ticket?.none).id
        }
        made["two 1 y"] = try container.resolveThrows(Parcel.self, arguments: 1, "y").id
        made["three 1 t"] = try container.resolveThrows(Parcel.self, arguments: 1, "x", Ticket(id: 7) as Ticket?).id
        // The same arguments give the same instance.
        #expect(try container.resolveThrows(Parcel.self, argument: 1).id == made["one 1"])
        #expect(Set(made.values).count == made.count)
        try container.dispose()
        var expected: [String] = []
        for (label, id) in made.sorted(by: { $0.value > $1.value }) {
            let arity = label.split(separator: " ")[0]
            expected.append("\(arity) \(id)")
            if arity == "three" {
                expected.append("three again \(id)")
            }
        }
        // Newest completion first; the handlers of one instance in the order added.
        #expect(ended.all == expected)
        try container.dispose()
        #expect(ended.all == expected)
    }

    @Test("dispose() across .container and .multiton, with and without handlers, in a hierarchy: newest first")
    func orderInHierarchy() throws {
        let parent = Container()
        let child = Container(parent: parent)
        let serial = Counter()
        let ended = EventLog()
        parent.register(Parcel.self, name: "p") { _ in Parcel(serial.next()) }
            .inObjectScope(.container)
            .onDispose { ended.record("p \($0.id)") }
        child.register(Parcel.self, name: "quiet") { _ in Parcel(serial.next(), ended: ended) }
            .inObjectScope(.container)
        child.register(Parcel.self, name: "m") { (r, n: Int) in
            _ = r.resolve(Parcel.self, name: "quiet")
            return Parcel(serial.next())
        }
        .inObjectScope(.multiton)
        .onDispose { ended.record("m \($0.id)") }
        child.register(Parcel.self, name: "c") { r in
            let dependency = r.resolve(Parcel.self, name: "m", argument: 2)
            let box = Parcel(serial.next())
            box.dependency = dependency
            return box
        }
        .inObjectScope(.container)
        .onDispose { box in ended.record("c \(box.id) needs \(box.dependency?.id ?? -1)") }
        _ = try child.resolveThrows(Parcel.self, name: "p")
        _ = try child.resolveThrows(Parcel.self, name: "m", argument: 1)
        let top = try child.resolveThrows(Parcel.self, name: "c")
        let middle = try #require(top.dependency)
        #expect(top.id == 5 && middle.id == 4)
        try child.dispose()
        // The quiet box (2) has no handler and ends after every handler ran; the parent's is untouched.
        #expect(ended.all == ["c 5 needs 4", "m 4", "m 3", "deinit 2"])
        try parent.dispose()
        #expect(ended.all == ["c 5 needs 4", "m 4", "m 3", "deinit 2", "p 1"])
    }

    @Test("Every handler runs when some throw; the errors come in the order thrown, naming their registration")
    func throwingHandlers() async throws {
        let container = Container()
        let serial = Counter()
        let ran = EventLog()
        container.register(Parcel.self, name: "a") { _ in Parcel(serial.next()) }
            .inObjectScope(.container)
            .onDispose {
                ran.record("a1 \($0.id)")
                throw HandlerFailed(label: "a1 \($0.id)")
            }
            .onDisposeAsync {
                ran.record("a-async \($0.id)")
                throw HandlerFailed(label: "a-async \($0.id)")
            }
            .onDispose { ran.record("a2 \($0.id)") }
        container.register(Ticket.self) { (_, n: Int) in Ticket(id: serial.next()) }
            .inObjectScope(.multiton)
            .onDispose {
                ran.record("t \($0.id)")
                throw HandlerFailed(label: "t \($0.id)")
            }
        _ = try container.resolveThrows(Parcel.self, name: "a")
        _ = try container.resolveThrows(Ticket.self, argument: 1)
        _ = try container.resolveThrows(Ticket.self, argument: 2)
        let error = #expect(throws: DIError.self) { try container.dispose() }
        #expect(failedLabels(try #require(error)) == ["t 3", "t 2", "a1 1"])
        #expect(ran.all == ["t 3", "t 2", "a1 1", "a2 1"])
        if case .disposalFailed(let failures) = error, let first = failures.first,
            case .factoryFailed(let key, _, _) = first
        {
            #expect(key == ServiceKey(serviceType: Ticket.self, argumentsType: Int.self, argumentCount: 1))
        } else {
            Issue.record("unexpected \(String(describing: error))")
        }
        _ = try container.resolveThrows(Parcel.self, name: "a")
        do {
            try await container.disposeAsync()
            Issue.record("disposeAsync() did not throw")
        } catch {
            #expect(failedLabels(error) == ["a1 4", "a-async 4"])
        }
        #expect(ran.all.suffix(3) == ["a1 4", "a-async 4", "a2 4"])
    }

    @Test("Instances without handlers live until every handler of the call ran; a dependent's handler uses them")
    func instancesWithoutHandlersOutliveHandlers() throws {
        let container = Container()
        let serial = Counter()
        let events = EventLog()
        // Kept only weakly by the dependent, and by the container.
        container.register(Parcel.self, name: "dependency") { _ in Parcel(serial.next(), ended: events) }
            .inObjectScope(.container)
        container.register(Parcel.self, name: "later") { (_, n: Int) in Parcel(serial.next(), ended: events) }
            .inObjectScope(.multiton)
        container.register(Ticket.self, name: "value") { _ in Ticket(id: serial.next()) }
            .inObjectScope(.container)
        weak var later: Parcel?
        container.register(Parcel.self, name: "dependent") { r in
            let dependency = r.resolve(Parcel.self, name: "dependency")
            let box = Parcel(serial.next(), ended: events)
            box.dependency = dependency
            return box
        }
        .inObjectScope(.container)
        .onDispose { box in
            events.record("handler \(box.id): dependency \(box.dependency?.id ?? -1), later \(later?.id ?? -1)")
        }
        do {
            _ = try container.resolveThrows(Parcel.self, name: "dependent")
            _ = try container.resolveThrows(Ticket.self, name: "value")
            later = try container.resolveThrows(Parcel.self, name: "later", argument: 1)
        }
        #expect(later?.id == 4)
        try container.dispose()
        let all = events.all
        #expect(all.first == "handler 2: dependency 1, later 4")
        #expect(Set(all.dropFirst()) == ["deinit 1", "deinit 2", "deinit 4"])
        #expect(all.count == 4)
        #expect(later == nil)
    }

    @Test("What dispose() ends is released, whatever the service type it was kept as")
    func disposedInstancesAreReleased() async throws {
        let container = Container()
        let serial = Counter()
        container.register(Any.self) { _ in Parcel(serial.next()) }.inObjectScope(.container).onDispose { _ in }
        container.register(AnyObject.self) { _ in Parcel(serial.next()) }.inObjectScope(.container)
        container.register(Parcel?.self) { (_, n: Int) in Parcel(serial.next()) }.inObjectScope(.multiton)
            .onDisposeAsync { _ in }
        container.register((Parcel, Int).self) { _ in (Parcel(serial.next()), 1) }.inObjectScope(.container)
            .onDispose { _ in }
        container.registerAsync(Crate<Parcel>.self) { _ in Crate(Parcel(serial.next())) }.inObjectScope(.container)
            .onDisposeAsync { _ in }
        weak var a: Parcel?
        weak var b: AnyObject?
        weak var c: Parcel?
        weak var d: Parcel?
        weak var e: Crate<Parcel>?
        do {
            a = try container.resolveThrows(Any.self) as? Parcel
            b = try container.resolveThrows(AnyObject.self)
            c = try container.resolveThrows(Parcel?.self, argument: 1)
            d = try container.resolveThrows((Parcel, Int).self).0
            e = try await container.synchronize().resolveAsync(Crate<Parcel>.self)
        }
        #expect(a != nil && b != nil && c != nil && d != nil && e != nil)
        try await container.disposeAsync()
        #expect(a == nil && b == nil && c == nil && d == nil && e == nil)
    }

    @Test("Deinitializers that resolve, register and dispose again while dispose() lets go of their instances")
    func reenteringDeinitializers() throws {
        let container = Container()
        let serial = Counter()
        let events = EventLog()
        weak var weakContainer: Container?
        weakContainer = container
        container.register(Farewell.self) { (_, n: Int) in
            let id = serial.next()
            return Farewell(id) {
                events.record("deinit \(id)")
                guard let container = weakContainer else { return }
                // Resolve a new instance, register something, dispose (nothing of this dispose twice).
                let again = container.resolve(Parcel.self, name: "again")
                events.record("resolved \(again?.id ?? -1)")
                container.register(Ticket.self, name: "late \(id)") { _ in Ticket(id: id) }
                    .inObjectScope(.container)
                    .onDispose { events.record("late ticket \($0.id)") }
                _ = container.resolve(Ticket.self, name: "late \(id)")
                do {
                    try container.dispose()
                } catch {
                    events.record("nested dispose threw \(error)")
                }
            }
        }
        .inObjectScope(.multiton)
        .onDispose { events.record("farewell \($0.id)") }
        container.register(Parcel.self, name: "again") { _ in Parcel(100 + serial.next()) }
            .inObjectScope(.container)
            .onDispose { events.record("box \($0.id)") }
        _ = try container.resolveThrows(Farewell.self, argument: 1)
        _ = try container.resolveThrows(Farewell.self, argument: 2)
        try container.dispose()
        let all = events.all
        // Both handlers ran first, once each, newest first.
        #expect(Array(all.prefix(2)) == ["farewell 2", "farewell 1"])
        #expect(all.filter { $0.hasPrefix("farewell") }.count == 2)
        // Each deinitializer's own resolve is ended by its own nested dispose() (or a later one), once.
        let boxes = all.filter { $0.hasPrefix("box") }
        #expect(Set(boxes).count == boxes.count)
        #expect(all.filter { $0.hasPrefix("late ticket") }.sorted() == ["late ticket 1", "late ticket 2"])
        #expect(!all.contains { $0.hasPrefix("nested dispose threw") })
        try container.dispose()
        #expect(events.all.filter { $0.hasPrefix("farewell") }.count == 2)
    }

    @Test("A handler added during dispose() to a registration with other instances still to end")
    func handlerAddedDuringDisposalOfSeveralInstances() throws {
        let container = Container()
        let events = EventLog()
        var entry: ServiceEntry<Parcel>?
        var other: ServiceEntry<Parcel>?
        entry = container.register(Parcel.self) { (_, n: Int) in Parcel(n) }
            .inObjectScope(.multiton)
            .onDispose { box in
                events.record("first \(box.id)")
                if box.id == 2 {
                    entry?.onDispose { events.record("added \($0.id)") }
                    other?.onDispose { events.record("other added \($0.id)") }
                }
            }
        other = container.register(Parcel.self, name: "other") { _ in Parcel(0) }
            .inObjectScope(.container)
            .onDispose { events.record("other \($0.id)") }
        _ = try container.resolveThrows(Parcel.self, name: "other")
        _ = try container.resolveThrows(Parcel.self, argument: 1)
        _ = try container.resolveThrows(Parcel.self, argument: 2)
        try container.dispose()
        // As for a single instance (`DisposalAttackTests.handlerAddedDuringDisposal`), and as before the
        // handlers were erased: what dispose() runs was fixed when it took the instances. (While the erased
        // handlers were one object shared by the entry and its disposals, the handlers added here ran on
        // instance 1 and on the other registration's instance too.)
        #expect(events.all == ["first 2", "first 1", "other 0"])
        _ = try container.resolveThrows(Parcel.self, name: "other")
        _ = try container.resolveThrows(Parcel.self, argument: 3)
        try container.dispose()
        #expect(events.all.suffix(4) == ["first 3", "added 3", "other 0", "other added 0"])
        entry = nil
        other = nil
    }
}

// MARK: - The other dropping calls

@Suite("Disposal erasure attacks: resets, re-registrations, removals, failed resolves", .tags(.engine))
struct DisposalErasureDropTests {
    /// Registers a `.container` `Parcel` and a `.multiton` `Ticket` (argument `Int`) in `container`, whose
    /// handlers record in `ended` and whose first handler throws.
    private static func registerThrowing(in container: Container, serial: Counter, ended: EventLog) {
        container.register(Parcel.self) { _ in Parcel(serial.next()) }
            .inObjectScope(.container)
            .onDispose {
                ended.record("box \($0.id)")
                throw HandlerFailed(label: "box \($0.id)")
            }
            .onDispose { ended.record("box again \($0.id)") }
        container.register(Ticket.self) { (_, n: Int) in Ticket(id: serial.next()) }
            .inObjectScope(.multiton)
            .onDispose {
                ended.record("ticket \($0.id)")
                throw HandlerFailed(label: "ticket \($0.id)")
            }
    }

    private static func resolveAll(in container: Container) throws {
        _ = try container.resolveThrows(Parcel.self)
        _ = try container.resolveThrows(Ticket.self, argument: 1)
        _ = try container.resolveThrows(Ticket.self, argument: 2)
    }

    /// Runs `body` with `Container.logHandler` recording the disposal failures of this file's handlers
    /// (`HandlerFailed`) it receives. Other errors (what tests running at the same time log) go on to the
    /// handler it replaced.
    private static func logging(_ body: () throws -> Void) rethrows -> [DIError] {
        let logged = LoggedErrors()
        let previous = Container.logHandler
        Container.logHandler = { error in
            if case .disposalFailed(let failures) = error,
                failures.contains(where: { failure in
                    guard case .factoryFailed(_, _, let underlying) = failure else { return false }
                    return underlying is HandlerFailed
                })
            {
                logged.append(error)
            } else {
                previous?(error)
            }
        }
        defer { Container.logHandler = previous }
        try body()
        return logged.all
    }

    @Test(
        "resetObjectScope, re-registration, removeAll() and release run each handler once; errors go to the log",
        .swapsLogHandler
    )
    func droppingCallsRunHandlersOnce() throws {
        for call in ["reset container", "reset multiton", "re-register", "removeAll", "release", "release multiton"] {
            let container = Container()
            let serial = Counter()
            let ended = EventLog()
            Self.registerThrowing(in: container, serial: serial, ended: ended)
            try Self.resolveAll(in: container)
            let logged = Self.logging {
                switch call {
                case "reset container":
                    container.resetObjectScope(.container)
                case "reset multiton":
                    container.resetObjectScope(.multiton)
                case "re-register":
                    container.register(Parcel.self) { _ in Parcel(-1) }.inObjectScope(.container)
                    container.register(Ticket.self) { (_, n: Int) in Ticket(id: -1) }.inObjectScope(.multiton)
                case "removeAll":
                    container.removeAll()
                case "release":
                    container.unregister(ServiceKey(serviceType: Parcel.self))
                default:
                    container.unregister(ServiceKey(serviceType: Ticket.self, argumentsType: Int.self))
                }
            }
            // One call ends its instances newest first; the two re-registrations are two calls.
            let expected: [String] =
                switch call {
                case "reset container", "release": ["box 1", "box again 1"]
                case "reset multiton", "release multiton": ["ticket 3", "ticket 2"]
                case "re-register": ["box 1", "box again 1", "ticket 3", "ticket 2"]
                default: ["ticket 3", "ticket 2", "box 1", "box again 1"]
                }
            let expectedLogs: [[String]] =
                switch call {
                case "reset container", "release": [["box 1"]]
                case "reset multiton", "release multiton": [["ticket 3", "ticket 2"]]
                case "re-register": [["box 1"], ["ticket 3", "ticket 2"]]
                default: [["ticket 3", "ticket 2", "box 1"]]
                }
            #expect(ended.all == expected, "\(call)")
            #expect(logged.map(failedLabels) == expectedLogs, "\(call)")
            // Nothing ends twice afterwards.
            _ = try? container.dispose()
            _ = try? container.dispose()
            let rest = ended.all.dropFirst(expected.count)
            #expect(Set(rest).isDisjoint(with: expected), "\(call): \(ended.all)")
        }
    }

    @Test("A scope change drops the instances without their handlers; dispose() afterwards ends nothing of them")
    func scopeChangeDropsWithoutHandlers() throws {
        let container = Container()
        let serial = Counter()
        let ended = EventLog()
        let entry = container.register(Parcel.self) { (_, n: Int) in Parcel(serial.next(), ended: ended) }
            .inObjectScope(.multiton)
            .onDispose { ended.record("handler \($0.id)") }
        _ = try container.resolveThrows(Parcel.self, argument: 1)
        _ = try container.resolveThrows(Parcel.self, argument: 2)
        entry.inObjectScope(.container)
        #expect(Set(ended.all) == ["deinit 1", "deinit 2"])
        _ = try container.resolveThrows(Parcel.self, argument: 3)
        try container.dispose()
        #expect(ended.all.suffix(2) == ["handler 3", "deinit 3"])
        entry.inObjectScope(.multiton)
        try container.dispose()
        #expect(ended.all.count == 4)
    }

    @Test(
        "A resolve failed by a captive dependency after its .container or .multiton instance was kept: ended once",
        .swapsLogHandler
    )
    func failedResolveEndsKeptInstance() throws {
        for multiton in [false, true] {
            let app = Container()
            let serial = Counter()
            let ended = EventLog()
            app.register(Ticket.self) { _ in Ticket(id: 0) }
            // Kept before the capture is found, then dropped and ended by the failing call (`dropKept`).
            app.register(Parcel.self, name: "kept") { (_, n: Int) in Parcel(serial.next()) }
                .inObjectScope(multiton ? .multiton : .container)
                .onDispose {
                    ended.record("kept \($0.id)")
                    throw HandlerFailed(label: "kept \($0.id)")
                }
                .onDispose { ended.record("kept again \($0.id)") }
                .onDisposeAsync { ended.record("kept async \($0.id)") }
            app.register(Parcel.self) { (r, n: Int) in
                let kept = r.resolve(Parcel.self, name: "kept", argument: n)
                _ = r.resolve(Ticket.self)
                return Parcel(100 + (kept?.id ?? -1))
            }
            .inObjectScope(.container)
            .onDispose { ended.record("holder \($0.id)") }
            let request = Container(parent: app)
            request.register(Ticket.self) { _ in Ticket(id: 1) }
            app.validatesScopes = true
            var thrown: DIError?
            let logged = Self.logging {
                do {
                    _ = try request.resolveThrows(Parcel.self, argument: 5)
                } catch {
                    thrown = error as? DIError
                }
            }
            guard case .captiveDependency = thrown else {
                Issue.record("\(multiton): expected a captive dependency, got \(String(describing: thrown))")
                continue
            }
            #expect(ended.all == ["kept 1", "kept again 1"], "\(multiton)")
            #expect(logged.map(failedLabels) == [["kept 1"]], "\(multiton)")
            // Nothing was kept: the app's resolve makes new ones, which dispose() ends once.
            #expect(try app.resolveThrows(Parcel.self, argument: 5).id == 102)
            #expect(throws: DIError.self) { try app.dispose() }
            try app.dispose()
            #expect(
                ended.all == ["kept 1", "kept again 1", "holder 102", "kept 2", "kept again 2"],
                "\(multiton)"
            )
        }
    }

    // MARK: - Drops mid-creation

    @Test(
        "dispose(), resetObjectScope or re-registration from a factory or an action: the instance ends once",
        .swapsLogHandler,
        arguments: ["dispose", "reset", "re-register"]
    )
    func dropsMidCreation(_ drop: String) throws {
        for place in ["factory", "action"] {
            for scope in [ObjectScope.container, .multiton] {
                let container = Container()
                let serial = Counter()
                let ended = EventLog()
                weak var weakContainer: Container?
                weakContainer = container
                let dropNow: () -> Void = {
                    guard let container = weakContainer else { return }
                    switch drop {
                    case "dispose":
                        do {
                            try container.dispose()
                        } catch {
                            ended.record("dispose threw")
                        }
                    case "reset":
                        container.resetObjectScope(scope)
                    default:
                        container.register(Parcel.self, name: "unrelated") { _ in Parcel(0) }
                        container.register(Ticket.self) { (_, n: Int) in Ticket(id: -1) }
                    }
                }
                // A value-type service too: the drop must hand the handler the ticket it made.
                container.register(Ticket.self) { (_, n: Int) in
                    let ticket = Ticket(id: serial.next())
                    if place == "factory", ticket.id == 1 {
                        dropNow()
                    }
                    return ticket
                }
                .inObjectScope(scope)
                .initCompleted { _, ticket in
                    if place == "action", ticket.id == 1 {
                        dropNow()
                    }
                }
                .onDispose {
                    ended.record("\($0.id)")
                    throw HandlerFailed(label: "\($0.id)")
                }
                let label = "\(drop) from the \(place), \(scope)"
                var ticket: Ticket?
                let logged = Self.logging {
                    ticket = try? container.resolveThrows(Ticket.self, argument: 1)
                }
                #expect(ticket?.id == 1, "\(label)")
                if drop == "dispose" && place == "action" {
                    // dispose() takes the instance waiting for its actions, and ends it itself: it throws.
                    #expect(ended.all == ["1", "dispose threw"], "\(label)")
                    #expect(logged.isEmpty, "\(label)")
                } else {
                    // Ended by the creation, or by a call that cannot throw: the error is logged.
                    #expect(ended.all == ["1"], "\(label)")
                    #expect(logged.map(failedLabels) == [["1"]], "\(label)")
                }
                let before = ended.all
                // Not kept: a new one (of the new registration after a re-registration), ended once.
                let next = try? container.resolveThrows(Ticket.self, argument: 1)
                #expect(next?.id == (drop == "re-register" ? -1 : 2), "\(label)")
                _ = try? container.dispose()
                _ = try? container.dispose()
                #expect(ended.all == before + (drop == "re-register" ? [] : ["2"]), "\(label)")
            }
        }
    }
}

// MARK: - Creations in flight

@Suite("Disposal erasure attacks: async handlers and creations in flight", .hangLimit, .tags(.concurrency, .engine))
struct DisposalErasureAsyncTests {
    @Test("Synchronous and asynchronous handlers interleaved run in the order added; dispose() skips the async")
    func interleavedHandlers() async throws {
        let container = Container()
        let serial = Counter()
        let ran = EventLog()
        container.register(Any.self) { (_, n: Int) in Ticket(id: serial.next()) }
            .inObjectScope(.multiton)
            .onDisposeAsync { ran.record("a1 \(($0 as? Ticket)?.id ?? -1)") }
            .onDispose { ran.record("s1 \(($0 as? Ticket)?.id ?? -1)") }
            .onDisposeAsync {
                await Task.yield()
                ran.record("a2 \(shown(type(of: $0)))")
            }
            .onDispose { ran.record("s2 \(shown(type(of: $0)))") }
        _ = try container.resolveThrows(Any.self, argument: 1)
        try container.dispose()
        #expect(ran.all == ["s1 1", "s2 Ticket"])
        _ = try container.resolveThrows(Any.self, argument: 1)
        _ = try container.resolveThrows(Any.self, argument: 2)
        try await container.disposeAsync()
        #expect(
            ran.all.dropFirst(2) == [
                "a1 3", "s1 3", "a2 Ticket", "s2 Ticket", "a1 2", "s1 2", "a2 Ticket", "s2 Ticket",
            ]
        )
    }

    /// Registers an async service `S` in `scope`, taking an `Int`, whose first creation waits for `release`
    /// after opening `entered`, with handlers recording `describe` of what they receive.
    private static func registerPending<S>(
        _ type: S.Type,
        in container: Container,
        scope: ObjectScope,
        entered: Gate,
        release: Gate,
        seen: EventLog,
        withHandlers: Bool = true,
        make: @escaping @Sendable (Int) -> S,
        describe: @escaping @Sendable (S) -> String
    ) {
        let serial = Counter()
        let entry = container.registerAsync(type) { (_, _: Int) in
            let id = serial.next()
            if id == 1 {
                entered.open()
                await release.wait()
            }
            seen.record("made \(id)")
            return make(id)
        }
        .inObjectScope(scope)
        if withHandlers {
            entry.onDispose { seen.record("sync " + describe($0)) }
            entry.onDisposeAsync { seen.record("async " + describe($0)) }
        }
    }

    /// `disposeAsync()` while the first creation of `S` is in flight, in `.container` and in `.multiton`:
    /// the handlers get what the creation made, once; it is not kept.
    private static func expectFlightDisposed<S>(
        _ type: S.Type,
        make: @escaping @Sendable (Int) -> S,
        describe: @escaping @Sendable (S) -> String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for scope in [ObjectScope.container, .multiton] {
            let container = Container()
            let entered = Gate()
            let release = Gate()
            let seen = EventLog()
            Self.registerPending(
                type,
                in: container,
                scope: scope,
                entered: entered,
                release: release,
                seen: seen,
                make: make,
                describe: describe
            )
            let view = container.synchronize()
            let pending = Task { describe(try await view.resolveAsync(type, argument: 1)) }
            await entered.wait()
            nonisolated(unsafe) let disposable = container
            let disposing = Task { try await disposable.disposeAsync() }
            try await Task.sleep(for: .milliseconds(20))
            #expect(seen.all.isEmpty, "\(scope)", sourceLocation: sourceLocation)
            release.open()
            try await disposing.value
            let made = try await pending.value
            #expect(
                seen.all == ["made 1", "sync \(made)", "async \(made)"],
                "\(scope)",
                sourceLocation: sourceLocation
            )
            // Not kept: the next resolve makes another, ended once by the next disposal.
            let next = describe(try await view.resolveAsync(type, argument: 1))
            #expect(next != made, "\(scope)", sourceLocation: sourceLocation)
            try await container.disposeAsync()
            try await container.disposeAsync()
            #expect(
                seen.all == ["made 1", "sync \(made)", "async \(made)", "made 2", "sync \(next)", "async \(next)"],
                "\(scope)",
                sourceLocation: sourceLocation
            )
        }
    }

    @Test("disposeAsync() during a creation in flight: the handlers get the instance it made, of any service type")
    func flightHandlersGetTheMadeInstance() async throws {
        try await Self.expectFlightDisposed(Parcel.self, make: { Parcel($0) }, describe: { identity($0) + " \($0.id)" })
        try await Self.expectFlightDisposed(
            Any.self,
            make: { Parcel($0) as Any },
            describe: { value in
                "\(shown(type(of: value))) " + ((value as? Parcel).map { identity($0) } ?? "not a Parcel")
            }
        )
        try await Self.expectFlightDisposed(
            Int?.self,
            make: { $0 == 1 ? nil : $0 },
            describe: { "\(shown(type(of: $0))) \(String(describing: $0))" }
        )
        try await Self.expectFlightDisposed(
            Any.self,
            make: { $0 == 1 ? Int?.none as Any : $0 as Any },
            describe: { "\(shown(type(of: $0))) \($0)" }
        )
        try await Self.expectFlightDisposed(
            (any Named & Sendable).self,
            make: { Badge(name: "n\($0)", number: $0) },
            describe: { "\(shown(type(of: $0))) \($0.name)" }
        )
        try await Self.expectFlightDisposed(
            (Int, Ticket?).self,
            make: { ($0, $0 == 1 ? nil : Ticket(id: $0)) },
            describe: { "\(shown(type(of: $0))) \($0.0) \(String(describing: $0.1))" }
        )
        try await Self.expectFlightDisposed(
            (@Sendable (Int) -> Int).self,
            make: { offset in { $0 + offset } },
            describe: { "\(shown(type(of: $0))) \($0(100))" }
        )
    }

    @Test(
        "disposeAsync() during a flight without handlers, or whose creating task is cancelled, returns once it ends",
        arguments: [false, true]
    )
    func flightWithoutHandlersOrCancelled(_ cancelled: Bool) async throws {
        for scope in [ObjectScope.container, .multiton] {
            for withHandlers in [false, true] {
                let container = Container()
                let entered = Gate()
                let release = Gate()
                let seen = EventLog()
                Self.registerPending(
                    Parcel.self,
                    in: container,
                    scope: scope,
                    entered: entered,
                    release: release,
                    seen: seen,
                    withHandlers: withHandlers,
                    make: { Parcel($0) },
                    describe: { "\($0.id)" }
                )
                let view = container.synchronize()
                let pending = Task { try await view.resolveAsync(Parcel.self, argument: 1).id }
                await entered.wait()
                nonisolated(unsafe) let disposable = container
                let disposing = Task { try await disposable.disposeAsync() }
                try await Task.sleep(for: .milliseconds(20))
                if cancelled {
                    pending.cancel()
                    disposing.cancel()
                }
                #expect(seen.all.isEmpty)
                release.open()
                try await disposing.value
                let label = "\(scope), handlers \(withHandlers), cancelled \(cancelled)"
                #expect(seen.all == (withHandlers ? ["made 1", "sync 1", "async 1"] : ["made 1"]), "\(label)")
                let made = try? await pending.value
                #expect(made == nil || made == 1, "\(label)")
                #expect(try await view.resolveAsync(Parcel.self, argument: 1).id == 2, "\(label)")
            }
        }
    }

    @Test("disposeAsync() during a creation that fails, its resolving task cancelled: no handler and no error")
    func flightThatFails() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let seen = EventLog()
        container.registerAsync(Parcel.self) { _ in
            entered.open()
            await release.wait()
            throw HandlerFailed(label: "factory")
        }
        .inObjectScope(.container)
        .onDispose { seen.record("sync \($0.id)") }
        .onDisposeAsync { seen.record("async \($0.id)") }
        let view = container.synchronize()
        let pending = Task { try await view.resolveAsync(Parcel.self) }
        await entered.wait()
        nonisolated(unsafe) let disposable = container
        let disposing = Task { try await disposable.disposeAsync() }
        try await Task.sleep(for: .milliseconds(20))
        pending.cancel()
        release.open()
        try await disposing.value
        #expect(seen.all.isEmpty)
        let result = try? await pending.value
        #expect(result == nil)
    }

    @Test("dispose() during a flight: the creation runs the sync handlers on its instance; async ones never run")
    func syncDisposeDuringFlight() async throws {
        for scope in [ObjectScope.container, .multiton] {
            let container = Container()
            let entered = Gate()
            let release = Gate()
            let seen = EventLog()
            Self.registerPending(
                Any.self,
                in: container,
                scope: scope,
                entered: entered,
                release: release,
                seen: seen,
                make: { Ticket(id: $0) },
                describe: { "\(shown(type(of: $0))) \(($0 as? Ticket)?.id ?? -1)" }
            )
            let view = container.synchronize()
            let pending = Task { (try await view.resolveAsync(Any.self, argument: 1) as? Ticket)?.id }
            await entered.wait()
            try container.dispose()
            release.open()
            #expect(try await pending.value == 1)
            #expect(seen.all == ["made 1", "sync Ticket 1"], "\(scope)")
            try await container.disposeAsync()
            #expect(seen.all == ["made 1", "sync Ticket 1"], "\(scope)")
        }
    }
}

// MARK: - Threads and tasks

@Suite("Disposal erasure attacks: threads and tasks", .hangLimit, .tags(.concurrency, .engine))
struct DisposalErasureConcurrencyTests {
    @Test("Threads resolving through synchronize() while others dispose and reset: every instance ends once")
    func threadsResolveWhileOthersDispose() throws {
        let container = Container()
        let serial = Counter()
        let ends = Ends()
        let wrongType = EventLog()
        container.register(Any.self, name: "any") { _ in Parcel(serial.next()) }
            .inObjectScope(.container)
            .onDispose { value in
                guard let box = value as? Parcel else { return wrongType.record("\(shown(type(of: value)))") }
                ends.add(box.id)
            }
        container.register(Int?.self) { (_, n: Int) in serial.next() }
            .inObjectScope(.multiton)
            .onDispose { value in
                guard let id = value else { return wrongType.record("nil") }
                ends.add(id)
            }
        container.register((any Named).self) { (_, n: Int, s: String) in Badge(name: s, number: serial.next()) }
            .inObjectScope(.multiton)
            .onDispose { value in
                guard let badge = value as? Badge else { return wrongType.record("\(shown(type(of: value)))") }
                ends.add(badge.number)
            }
        let view = container.synchronize()
        nonisolated(unsafe) let disposable = container
        let failures = EventLog()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for step in 0..<300 {
                switch worker {
                case 0, 1:
                    _ = view.resolve(Any.self, name: "any")
                    _ = view.resolve(Int?.self, argument: step % 5)
                    _ = view.resolve((any Named).self, arguments: step % 3, "w\(worker)")
                case 2:
                    do {
                        try disposable.dispose()
                    } catch {
                        failures.record("\(error)")
                    }
                default:
                    disposable.resetObjectScope(step.isMultiple(of: 2) ? .container : .multiton)
                }
            }
        }
        try container.dispose()
        #expect(failures.all.isEmpty)
        #expect(wrongType.all.isEmpty)
        #expect(ends.twice.isEmpty)
        #expect(ends.total == serial.count)
    }

    @Test("Tasks resolving async .container and .multiton services while others disposeAsync(): each ends once")
    func tasksResolveWhileOthersDisposeAsync() async throws {
        let container = Container()
        let serial = Counter()
        let syncEnds = Ends()
        let asyncEnds = Ends()
        container.registerAsync(Any.self) { _ in
            await Task.yield()
            return Ticket(id: serial.next())
        }
        .inObjectScope(.container)
        .onDispose { syncEnds.add(($0 as? Ticket)?.id ?? -1) }
        .onDisposeAsync { asyncEnds.add(($0 as? Ticket)?.id ?? -1) }
        container.registerAsync(Parcel?.self) { (_, n: Int) in
            await Task.yield()
            return Parcel(serial.next())
        }
        .inObjectScope(.multiton)
        .onDispose { syncEnds.add($0?.id ?? -1) }
        .onDisposeAsync { asyncEnds.add($0?.id ?? -1) }
        let view = container.synchronize()
        nonisolated(unsafe) let disposable = container
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for step in 0..<100 {
                        if worker == 3 {
                            try await disposable.disposeAsync()
                        } else {
                            _ = try await view.resolveAsync(Any.self)
                            _ = try await view.resolveAsync(Parcel?.self, argument: step % 4)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        try await container.disposeAsync()
        #expect(syncEnds.count(-1) == 0 && asyncEnds.count(-1) == 0)
        #expect(syncEnds.twice.isEmpty)
        #expect(asyncEnds.twice.isEmpty)
        #expect(syncEnds.total == serial.count)
        // A creation that a sync-only drop took runs no async handler; here every drop is disposeAsync().
        #expect(asyncEnds.total == serial.count)
    }

    @Test("onDispose on one thread while another disposes: the handlers a disposal runs are read without a race")
    func handlersAddedWhileAnotherThreadRunsThem() throws {
        // For Thread Sanitizer: a disposal reads its handlers after leaving the lock while `onDispose`
        // appends to the registration's under the lock. While the handlers were one object shared by the
        // entry and its disposals, that was a data race; a disposal now takes its own copy of them.
        let container = Container()
        let serial = Counter()
        let runs = Ends()
        nonisolated(unsafe) let entry = container.register(Parcel.self) { (_, n: Int) in Parcel(serial.next()) }
            .inObjectScope(.multiton)
            .onDispose { runs.add($0.id) }
        let view = container.synchronize()
        let done = Counter()
        let adding = DispatchGroup()
        // Adds handlers on another thread for as long as this one resolves and disposes.
        DispatchQueue.global().async(group: adding) {
            while done.count == 0 {
                entry.onDispose { _ in }
                usleep(20)
            }
        }
        for step in 0..<300 {
            _ = view.resolve(Parcel.self, argument: step % 8)
            try container.dispose()
        }
        done.increment()
        adding.wait()
        try container.dispose()
        #expect(runs.total == serial.count)
    }
}

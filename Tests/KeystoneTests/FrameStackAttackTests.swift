import Dispatch
import Foundation
import Testing

@testable import Keystone

// Attacks on three changes: the frames of creations in flight kept in a `FrameStack` (a buffer growing by
// doubling from 16), `resolveAll` reading its slots in place, and `MultitonKey` handing Dictionary's hash to
// its payload. Deep chains cross every growth step (16, 32, 64, 128) up to the depth limit (200), with
// cycles, misses, throwing factories and actions at depth, and factories that drop (reset, re-register,
// remove, dispose, re-scope) registrations in flight above or below them.
//
// They run under Address Sanitizer with its default options. They found that, with its use-after-return
// detection on, `StackSpace.isLow()` read the address of a local in ASan's fake stack, outside the thread's
// stack, and reported the stack as nearly used up at the first check (depth 16): every resolve nested deeper
// failed with depthLimitExceeded (limit 16). The check now measures only a local on the thread's stack.

// MARK: - Fixtures

/// A link of a chain: its depth, a serial number unique to the instance, the next link.
private final class FSANode {
    let depth: Int
    let serial: Int
    let next: FSANode?
    var back: FSANode?
    var tag: String = ""

    init(depth: Int, serial: Int, next: FSANode?) {
        self.depth = depth
        self.serial = serial
        self.next = next
    }

    /// The depths of this node and the ones after it.
    var depths: [Int] {
        var result: [Int] = []
        var node: FSANode? = self
        while let current = node {
            result.append(current.depth)
            node = current.next
        }
        return result
    }

    /// This node and the ones after it.
    var links: [FSANode] {
        var result: [FSANode] = []
        var node: FSANode? = self
        while let current = node {
            result.append(current)
            node = current.next
        }
        return result
    }
}

private struct FSAMissing {}

/// An argument whose `==` runs `onCompare` (set by one test, on its thread) before comparing.
private struct FSAReentrantArgument: Equatable {
    nonisolated(unsafe) static var onCompare: (() -> Void)?
    let value: Int

    static func == (lhs: FSAReentrantArgument, rhs: FSAReentrantArgument) -> Bool {
        onCompare?()
        return lhs.value == rhs.value
    }
}

private struct FSAFailure: Error, Equatable {
    let depth: Int
}

/// Counts, from any thread.
private final class FSACounts: @unchecked Sendable {
    // @unchecked: every field is used under `lock`.
    private let lock = NSLock()
    private var serial = 0
    private var made: [String: Int] = [:]
    private var disposed: [Int: Int] = [:]

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        serial += 1
        return serial
    }

    func noteMade(_ name: String) {
        lock.lock()
        made[name, default: 0] += 1
        lock.unlock()
    }

    func made(_ name: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return made[name] ?? 0
    }

    var totalMade: Int {
        lock.lock()
        defer { lock.unlock() }
        return made.values.reduce(0, +)
    }

    func noteDisposed(_ serial: Int) {
        lock.lock()
        disposed[serial, default: 0] += 1
        disposalOrder.append(serial)
        lock.unlock()
    }

    private var disposalOrder: [Int] = []

    /// The serials disposed of, in order.
    var disposals: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return disposalOrder
    }

    func disposed(_ serial: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return disposed[serial] ?? 0
    }
}

/// What the tail of a chain does.
private enum FSATail {
    case leaf
    case miss
    case fail
    case cycle(to: Int)
    case run((any Resolver) throws -> Void)
}

/// The tail's behaviour, switched between resolves.
private final class FSAMode {
    var tail: FSATail = .leaf
}

/// What a thread of ``onBigStack(_:)`` runs and returns.
private final class FSAThreadBox<T>: @unchecked Sendable {
    // @unchecked: written by the thread before it signals, read after.
    var body: (() throws -> T)?
    var result: Result<T, any Error>?
}

/// Runs `body` on a thread with a large stack, so that a chain 200 deep reaches the depth limit before the
/// engine's check of the stack left (instrumented frames are big under Address Sanitizer).
private func onBigStack<T>(_ body: @escaping () throws -> T) throws -> T {
    let box = FSAThreadBox<T>()
    box.body = body
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.result = Result { try box.body!() }
        box.body = nil
        done.signal()
    }
    thread.stackSize = 64 << 20
    thread.start()
    done.wait()
    return try box.result!.get()
}

/// Runs `body(index)` on `count` threads with large stacks, and waits for all of them.
private func onBigStackThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.stackSize = 16 << 20
        thread.start()
    }
    group.wait()
}

/// Registers the chain `prefix0` ... `prefix(count - 1)` of `FSANode`: each link resolves the next, the
/// last runs `mode.tail`. Returns the registrations, in order.
@discardableResult
private func registerChain(
    in container: Container,
    prefix: String = "",
    count: Int,
    scope: ObjectScope = .graph,
    counts: FSACounts,
    mode: FSAMode = FSAMode()
) -> [ServiceEntry<FSANode>] {
    var entries: [ServiceEntry<FSANode>] = []
    for depth in 0..<count {
        let name = "\(prefix)\(depth)"
        let entry = container.register(FSANode.self, name: name) { r in
            counts.noteMade(name)
            var next: FSANode?
            if depth + 1 < count {
                next = try r.resolveThrows(FSANode.self, name: "\(prefix)\(depth + 1)")
            } else {
                switch mode.tail {
                case .leaf:
                    break
                case .miss:
                    _ = try r.resolveThrows(FSAMissing.self)
                case .fail:
                    throw FSAFailure(depth: depth)
                case .cycle(let target):
                    next = try r.resolveThrows(FSANode.self, name: "\(prefix)\(target)")
                case .run(let body):
                    try body(r)
                }
            }
            return FSANode(depth: depth, serial: counts.next(), next: next)
        }
        .inObjectScope(scope)
        .onDispose { node in counts.noteDisposed(node.serial) }
        entries.append(entry)
    }
    return entries
}

private func names(_ path: [ServiceKey]) -> [String] {
    path.map { $0.name ?? "nil" }
}

private func names(_ range: Range<Int>, prefix: String = "") -> [String] {
    range.map { "\(prefix)\($0)" }
}

/// The lengths that cross the stack's growth steps, and the depth limit.
private let boundaryLengths = [1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 199, 200]

// MARK: - Deep chains

@Suite("FrameStackAttack: deep chains across growth steps", .tags(.engine))
struct FrameStackAttackChainTests {
    @Test("A chain of every boundary length resolves whole; a miss, a throw, a cycle at its tail name the path")
    func chainsAtBoundaries() throws {
        try onBigStack { () throws in
            for length in boundaryLengths {
                let container = Container()
                let counts = FSACounts()
                let mode = FSAMode()
                registerChain(in: container, count: length, scope: .container, counts: counts, mode: mode)

                // A miss at the tail: the path names every link in flight, in order; nothing is kept.
                mode.tail = .miss
                let miss = container.resolveResult(FSANode.self, name: "0")
                guard case .failure(.notRegistered(let key, let path, _)) = miss else {
                    Issue.record("length \(length): expected notRegistered, got \(miss)")
                    continue
                }
                #expect(ObjectIdentifier(key.serviceType) == ObjectIdentifier(FSAMissing.self))
                #expect(names(path) == names(0..<length), "length \(length)")

                // A throw at the tail: factoryFailed for the tail, with the path that led to it.
                mode.tail = .fail
                let failed = container.resolveResult(FSANode.self, name: "0")
                guard case .failure(.factoryFailed(let failedKey, let failedPath, let underlying)) = failed else {
                    Issue.record("length \(length): expected factoryFailed, got \(failed)")
                    continue
                }
                #expect(failedKey.name == "\(length - 1)")
                #expect(names(failedPath) == names(0..<(length - 1)))
                #expect(underlying as? FSAFailure == FSAFailure(depth: length - 1))

                // Cycles back to the first link, the middle one and the tail itself.
                for target in Set([0, length / 2, length - 1]).sorted() {
                    mode.tail = .cycle(to: target)
                    let cycle = container.resolveResult(FSANode.self, name: "0")
                    guard case .failure(.circularDependency(let cyclePath)) = cycle else {
                        Issue.record("length \(length) to \(target): expected a cycle, got \(cycle)")
                        continue
                    }
                    #expect(names(cyclePath) == names(target..<length) + ["\(target)"], "length \(length)")
                }

                // Nothing of the failed resolves was kept: the whole chain is made now, once.
                #expect(counts.totalMade > 0)
                let before = counts.totalMade
                mode.tail = .leaf
                let top = try container.resolveThrows(FSANode.self, name: "0")
                #expect(top.depths == Array(0..<length))
                #expect(counts.totalMade - before == length)
                // Kept: every link resolved again is the one in the chain.
                let links = top.links
                for depth in Set([0, length / 2, length - 1]) {
                    #expect(try container.resolveThrows(FSANode.self, name: "\(depth)") === links[depth])
                }
                #expect(counts.totalMade - before == length)
            }
        }
    }

    @Test("An argument's == resolves a chain 40 deep while the engine looks for a cycle through the stack")
    func equalityResolvesDuringCycleCheck() throws {
        try onBigStack { () throws in
            let container = Container()
            let counts = FSACounts()
            registerChain(in: container, prefix: "eq", count: 40, counts: counts)
            var chains: [[Int]] = []
            FSAReentrantArgument.onCompare = {
                // Only the first comparisons: a comparison from the chain's own resolves would recurse.
                guard chains.count < 3 else { return }
                chains.append((try? container.resolveThrows(FSANode.self, name: "eq0"))?.depths ?? [])
            }
            defer { FSAReentrantArgument.onCompare = nil }
            container.register(FSANode.self, name: "arg") { (r, argument: FSAReentrantArgument) in
                FSANode(
                    depth: argument.value,
                    serial: 0,
                    next: argument.value == 0
                        ? nil
                        : try r.resolveThrows(
                            FSANode.self,
                            name: "arg",
                            argument: FSAReentrantArgument(value: argument.value - 1)
                        )
                )
            }
            // 10 links of one registration, each resolving the next with new arguments (compared with ==), 15
            // deep first so that the chain resolved from == crosses 16, 32 and 64.
            let mode = FSAMode()
            mode.tail = .run { r in _ = try r.resolveThrows(FSANode.self, name: "start") }
            registerChain(in: container, prefix: "pre", count: 15, counts: counts, mode: mode)
            container.register(FSANode.self, name: "start") { r in
                FSANode(
                    depth: -1,
                    serial: 0,
                    next: try r.resolveThrows(FSANode.self, name: "arg", argument: FSAReentrantArgument(value: 10))
                )
            }
            _ = try container.resolveThrows(FSANode.self, name: "pre0")
            let top = try container.resolveThrows(FSANode.self, name: "start")
            #expect(top.next?.depths == Array((0...10).reversed()))
            #expect(chains == Array(repeating: Array(0..<40), count: 3))
        }
    }

    @Test("The depth limit: 200 nested creations resolve, the 201st fails with the whole path")
    func depthLimitExactly() throws {
        try onBigStack { () throws in
            let container = Container()
            let counts = FSACounts()
            registerChain(in: container, count: 201, counts: counts)
            let error = container.resolveResult(FSANode.self, name: "0")
            guard case .failure(.depthLimitExceeded(let path, let limit)) = error else {
                Issue.record("expected depthLimitExceeded, got \(error)")
                return
            }
            #expect(limit == 200)
            #expect(names(path) == names(0..<201))
            // Starting one link down, the same chain fits.
            let node = try container.resolveThrows(FSANode.self, name: "1")
            #expect(node.depths == Array(1..<201))
        }
    }

    @Test("Recursion through one registration with new arguments ends at the depth limit, not as a cycle")
    func argumentRecursionToTheLimit() throws {
        try onBigStack { () throws in
            let container = Container()
            container.register(FSANode.self) { (r, depth: Int) in
                FSANode(
                    depth: depth,
                    serial: 0,
                    next: depth == 0 ? nil : try r.resolveThrows(FSANode.self, argument: depth - 1)
                )
            }
            #expect(try container.resolveThrows(FSANode.self, argument: 199).depths == Array((0...199).reversed()))
            let error = container.resolveResult(FSANode.self, argument: 200)
            guard case .failure(.depthLimitExceeded(let path, _)) = error else {
                Issue.record("expected depthLimitExceeded, got \(error)")
                return
            }
            #expect(path.count == 201)
            // A repeat of equal arguments 150 deep, with nothing kept in between, is a cycle.
            container.register(FSANode.self, name: "loop") { (r, depth: Int) in
                let next = depth == 150 ? 0 : depth + 1
                return FSANode(
                    depth: depth,
                    serial: 0,
                    next: try r.resolveThrows(FSANode.self, name: "loop", argument: next)
                )
            }
            let cycle = container.resolveResult(FSANode.self, name: "loop", argument: 0)
            guard case .failure(.circularDependency(let cyclePath)) = cycle else {
                Issue.record("expected a cycle, got \(cycle)")
                return
            }
            #expect(cyclePath.count == 152)
        }
    }

    @Test(
        "An initCompleted action deep in a .container chain resolves the root in flight: one chain is kept",
        arguments: [3, 15, 16, 17, 32, 33, 64, 65, 90]
    )
    func actionResolvesRootAtDepth(depth: Int) throws {
        try onBigStack { () throws in
            let container = Container()
            let counts = FSACounts()
            let entries = registerChain(in: container, count: depth + 1, scope: .container, counts: counts)
            entries[depth].initCompleted { r, node in
                node.back = try r.resolveThrows(FSANode.self, name: "0")
            }
            let top = try container.resolveThrows(FSANode.self, name: "0")
            let links = top.links
            #expect(top.depths == Array(0...depth))
            #expect(links[depth].back === top)
            // The scope holds exactly the chain handed out.
            for index in 0...depth {
                #expect(try container.resolveThrows(FSANode.self, name: "\(index)") === links[index], "link \(index)")
            }
            // The deepest link was made once; nothing more is made now.
            #expect(counts.made("\(depth)") == 1)
            let made = counts.totalMade
            _ = try container.resolveThrows(FSANode.self, name: "0")
            #expect(counts.totalMade == made)
        }
    }

    @Test("An action that throws at depth fails with the path to it, and its instance is not kept")
    func actionThrowsAtDepth() throws {
        try onBigStack { () throws in
            for depth in [16, 33, 64, 129] {
                let container = Container()
                let counts = FSACounts()
                let entries = registerChain(in: container, count: depth + 5, scope: .container, counts: counts)
                var failing = true
                entries[depth].initCompleted { _, node in
                    if failing {
                        throw FSAFailure(depth: node.depth)
                    }
                }
                let error = container.resolveResult(FSANode.self, name: "0")
                guard case .failure(.factoryFailed(let key, let path, let underlying)) = error else {
                    Issue.record("depth \(depth): expected factoryFailed, got \(error)")
                    continue
                }
                #expect(key.name == "\(depth)")
                #expect(names(path) == names(0..<depth))
                #expect(underlying as? FSAFailure == FSAFailure(depth: depth))
                // The links below the failing one completed and are kept; the failing one is made again.
                let below = try container.resolveThrows(FSANode.self, name: "\(depth + 1)")
                failing = false
                let top = try container.resolveThrows(FSANode.self, name: "0")
                #expect(top.depths == Array(0..<(depth + 5)))
                #expect(top.links[depth + 1] === below)
                #expect(counts.made("\(depth)") == 2)
            }
        }
    }
}

// MARK: - Drops while creations are in flight

/// What the deep factory does to the registrations in flight above it.
enum FSADrop: CustomStringConvertible, Sendable {
    case resetAll
    case resetType
    case reregister(Int)
    case removeAll
    case dispose
    case rescope(Int)

    var description: String {
        switch self {
        case .resetAll: "resetObjectScope(.container)"
        case .resetType: "resetObjectScope(.container, serviceType:)"
        case .reregister(let index): "re-register \(index)"
        case .removeAll: "removeAll()"
        case .dispose: "dispose()"
        case .rescope(let index): "inObjectScope(.transient) on \(index)"
        }
    }
}

@Suite("FrameStackAttack: drops of creations in flight at depth", .tags(.engine))
struct FrameStackAttackDropTests {
    @Test(
        "A tail 140 deep drops registrations in flight above it: what they make is handed out, not kept",
        arguments: [
            FSADrop.resetAll, .resetType, .reregister(0), .reregister(15), .reregister(16), .reregister(64),
            .reregister(129), .reregister(139), .removeAll, .dispose, .rescope(0), .rescope(17), .rescope(128),
            .rescope(139),
        ]
    )
    func tailDropsFramesAbove(drop: FSADrop) throws {
        try onBigStack { () throws in
            let length = 140
            let container = Container()
            let counts = FSACounts()
            let mode = FSAMode()
            let entries = registerChain(in: container, count: length, scope: .container, counts: counts, mode: mode)
            unowned let unownedContainer = container
            var dropped = false
            mode.tail = .run { _ in
                guard !dropped else { return }
                dropped = true
                switch drop {
                case .resetAll:
                    unownedContainer.resetObjectScope(.container)
                case .resetType:
                    unownedContainer.resetObjectScope(.container, serviceType: FSANode.self)
                case .reregister(let index):
                    unownedContainer.register(FSANode.self, name: "\(index)") { _ in
                        let node = FSANode(depth: -1, serial: counts.next(), next: nil)
                        node.tag = "replacement"
                        return node
                    }
                    .inObjectScope(.container)
                case .removeAll:
                    unownedContainer.removeAll()
                case .dispose:
                    try unownedContainer.dispose()
                case .rescope(let index):
                    entries[index].inObjectScope(.transient)
                }
            }
            let top = try container.resolveThrows(FSANode.self, name: "0")
            #expect(top.depths == Array(0..<length), "\(drop)")
            let links = top.links
            let disposed = links.map { counts.disposed($0.serial) }
            switch drop {
            case .resetAll, .resetType, .dispose:
                // Every creation was in flight: each is ended once, none kept; the next resolve makes all anew.
                #expect(disposed == Array(repeating: 1, count: length), "\(drop)")
                let again = try container.resolveThrows(FSANode.self, name: "0")
                #expect(again.depths == Array(0..<length))
                #expect(zip(again.links, links).allSatisfy { $0 !== $1 }, "\(drop)")
            case .removeAll:
                #expect(disposed == Array(repeating: 1, count: length), "\(drop)")
                let after = container.resolveResult(FSANode.self, name: "0")
                guard case .failure(.notRegistered) = after else {
                    Issue.record("expected notRegistered after removeAll, got \(after)")
                    return
                }
            case .reregister(let index):
                // Only the replaced registration's creation is dropped (and ended); the others are kept.
                for (depth, link) in links.enumerated() {
                    #expect(counts.disposed(link.serial) == (depth == index ? 1 : 0), "link \(depth)")
                }
                let replacement = try container.resolveThrows(FSANode.self, name: "\(index)")
                #expect(replacement.tag == "replacement")
                if index != 0 {
                    #expect(try container.resolveThrows(FSANode.self, name: "0") === top)
                }
                for depth in [0, 15, 16, 64, 129, 139] where depth != index {
                    #expect(try container.resolveThrows(FSANode.self, name: "\(depth)") === links[depth])
                }
            case .rescope(let index):
                // A scope change drops without ending; the re-scoped registration keeps nothing now.
                #expect(disposed == Array(repeating: 0, count: length), "\(drop)")
                let first = try container.resolveThrows(FSANode.self, name: "\(index)")
                let second = try container.resolveThrows(FSANode.self, name: "\(index)")
                #expect(first !== links[index])
                #expect(first !== second)
                for depth in [0, 15, 16, 64, 129, 139] where depth != index && depth > index {
                    #expect(try container.resolveThrows(FSANode.self, name: "\(depth)") === links[depth])
                }
            }
        }
    }

    @Test("An initCompleted action 70 deep resets the scope: its instance, the deeper and the shallower end once")
    func actionResetsAtDepth() throws {
        try onBigStack { () throws in
            let container = Container()
            let counts = FSACounts()
            let entries = registerChain(in: container, count: 130, scope: .container, counts: counts)
            unowned let unownedContainer = container
            var resets = true
            entries[70].initCompleted { r, _ in
                guard resets else { return }
                unownedContainer.resetObjectScope(.container)
                // Resolved from the action, after the reset: a new instance of a link below, not kept either.
                _ = try r.resolveThrows(FSANode.self, name: "100")
            }
            let top = try container.resolveThrows(FSANode.self, name: "0")
            let links = top.links
            #expect(top.depths == Array(0..<130))
            #expect(links.allSatisfy { counts.disposed($0.serial) == 1 })
            resets = false
            let again = try container.resolveThrows(FSANode.self, name: "0")
            #expect(zip(again.links, links).allSatisfy { $0 !== $1 })
            #expect(try container.resolveThrows(FSANode.self, name: "0") === again)
        }
    }

    @Test("A link 20 deep resets the scope after its 120 deeper links completed: every instance ends once")
    func shallowResetsDeeperCompleted() throws {
        try onBigStack { () throws in
            let container = Container()
            let counts = FSACounts()
            registerChain(in: container, prefix: "d", count: 120, scope: .container, counts: counts)
            unowned let unownedContainer = container
            var shallowLinks: [FSANode] = []
            var resets = true
            for depth in 0..<21 {
                container.register(FSANode.self, name: "s\(depth)") { r in
                    let next: FSANode
                    if depth < 20 {
                        next = try r.resolveThrows(FSANode.self, name: "s\(depth + 1)")
                    } else {
                        next = try r.resolveThrows(FSANode.self, name: "d0")
                        if resets {
                            unownedContainer.resetObjectScope(.container)
                        }
                    }
                    return FSANode(depth: depth, serial: counts.next(), next: next)
                }
                .inObjectScope(.container)
                .onDispose { node in counts.noteDisposed(node.serial) }
            }
            let top = try container.resolveThrows(FSANode.self, name: "s0")
            shallowLinks = top.links
            #expect(shallowLinks.count == 141)
            #expect(shallowLinks.allSatisfy { counts.disposed($0.serial) == 1 })
            resets = false
            let again = try container.resolveThrows(FSANode.self, name: "s0")
            #expect(zip(again.links, shallowLinks).allSatisfy { $0 !== $1 })
            #expect(try container.resolveThrows(FSANode.self, name: "d119") === again.links[140])
        }
    }

    @Test("A deinitializer resolves 40 deep while a factory 70 deep runs, and after the call ends")
    func deinitializersResolveDuringDeepResolve() throws {
        final class Hook {
            let onEnd: () -> Void
            init(onEnd: @escaping () -> Void) { self.onEnd = onEnd }
            deinit { onEnd() }
        }
        try onBigStack { () throws in
            let container = Container()
            let counts = FSACounts()
            registerChain(in: container, prefix: "h", count: 40, counts: counts)
            unowned let unownedContainer = container
            var insideDepths: [Int] = []
            var insideMissPath: [String] = []
            var afterDepths: [Int] = []
            for depth in 0..<100 {
                container.register(FSANode.self, name: "\(depth)") { r in
                    if depth == 70 {
                        var hook: Hook? = Hook {
                            insideDepths = (try? unownedContainer.resolveThrows(FSANode.self, name: "h0"))?.depths ?? []
                            if case .failure(.notRegistered(_, let path, _)) = unownedContainer.resolveResult(
                                FSAMissing.self
                            ) {
                                insideMissPath = names(path)
                            }
                        }
                        _ = hook
                        hook = nil
                    }
                    let node = FSANode(
                        depth: depth,
                        serial: 0,
                        next: depth == 99 ? nil : try r.resolveThrows(FSANode.self, name: "\(depth + 1)")
                    )
                    if depth == 99 {
                        // Released when the graph ends, after the call.
                        unownedContainer.register(Hook.self, name: "late") { _ in
                            Hook {
                                afterDepths =
                                    (try? unownedContainer.resolveThrows(FSANode.self, name: "0"))?.depths ?? []
                            }
                        }
                    }
                    return node
                }
            }
            let top = try container.resolveThrows(FSANode.self, name: "0")
            #expect(top.depths == Array(0..<100))
            #expect(insideDepths == Array(0..<40))
            #expect(insideMissPath == names(0..<71))
            do {
                _ = try container.resolveThrows(Hook.self, name: "late")
            }
            // The hook's deinitializer ran after its call ended and resolved a whole chain.
            #expect(afterDepths == Array(0..<100))
        }
    }
}

// MARK: - resolveAll

private protocol FSAPlugin: AnyObject {
    var label: String { get }
}

private struct FSAInner {
    let chain: FSANode
}

private final class FSAPluginInstance: FSAPlugin {
    let label: String
    let chain: FSANode?
    init(label: String, chain: FSANode? = nil) {
        self.label = label
        self.chain = chain
    }
}

@Suite("FrameStackAttack: resolveAll reading slots in place", .tags(.engine))
struct FrameStackAttackResolveAllTests {
    @Test("Factories that register more of the same type see the registrations of the call's start")
    func factoriesRegisterMore() throws {
        let container = Container()
        unowned let unownedContainer = container
        for index in 0..<20 {
            container.register((any FSAPlugin).self, name: "p\(index)") { _ in
                unownedContainer.register((any FSAPlugin).self, name: "extra\(index)") { _ in
                    FSAPluginInstance(label: "extra\(index)")
                }
                // Replaces a later registration: that one resolves through its new factory.
                if index == 5 {
                    unownedContainer.register((any FSAPlugin).self, name: "p10") { _ in
                        FSAPluginInstance(label: "new p10")
                    }
                }
                return FSAPluginInstance(label: "p\(index)")
            }
        }
        let labels = container.resolveAll((any FSAPlugin).self).map(\.label)
        #expect(labels == (0..<20).map { $0 == 10 ? "new p10" : "p\($0)" })
        // Every factory but the replaced "p10"'s registered its extra.
        let again = container.resolveAll((any FSAPlugin).self).map(\.label)
        #expect(again == labels + (0..<20).filter { $0 != 10 }.map { "extra\($0)" })
    }

    @Test("A factory that removes every registration: the elements after it are left out, or fail the call")
    func factoryRemovesAll() throws {
        for stopping in [false, true] {
            let container = Container()
            unowned let unownedContainer = container
            for index in 0..<12 {
                container.register((any FSAPlugin).self, name: "p\(index)") { _ in
                    if index == 3 {
                        unownedContainer.removeAll()
                    }
                    return FSAPluginInstance(label: "p\(index)")
                }
            }
            if stopping {
                let result = Result { () throws(DIError) in try container.resolveAllThrows((any FSAPlugin).self) }
                guard case .failure(.notRegistered(let key, _, _)) = result else {
                    Issue.record("expected notRegistered, got \(result)")
                    continue
                }
                #expect(key.name == "p4")
            } else {
                #expect(container.resolveAll((any FSAPlugin).self).map(\.label) == ["p0", "p1", "p2", "p3"])
            }
            #expect(container.resolveAll((any FSAPlugin).self).isEmpty)
        }
    }

    @Test("Elements resolve chains 150 deep and call resolveAll again, recursively; one too deep fails the call")
    func recursiveAndDeep() throws {
        try onBigStack { () throws in
            let container = Container()
            let counts = FSACounts()
            registerChain(in: container, count: 150, counts: counts)
            for index in 0..<6 {
                container.register(FSAInner.self, name: "inner\(index)") { r in
                    FSAInner(chain: try r.resolveThrows(FSANode.self, name: "\(index * 20)"))
                }
            }
            for index in 0..<8 {
                container.register((any FSAPlugin).self, name: "p\(index)") { r in
                    let chain = try r.resolveThrows(FSANode.self, name: "0")
                    let inner = try r.resolveAllThrows(FSAInner.self)
                    // One graph: the inner elements' chains are the links of the outer one.
                    let links = chain.links
                    let shared = inner.enumerated().allSatisfy { $0.element.chain === links[$0.offset * 20] }
                    return FSAPluginInstance(label: "p\(index):\(inner.count):\(shared)", chain: chain)
                }
            }
            let plugins = try container.resolveAllThrows((any FSAPlugin).self)
            #expect(plugins.map(\.label) == (0..<8).map { "p\($0):6:true" })
            for plugin in plugins {
                #expect((plugin as? FSAPluginInstance)?.chain?.depths == Array(0..<150))
            }
            // An element whose chain goes past the depth limit fails the whole call.
            container.register((any FSAPlugin).self, name: "p3") { r in
                FSAPluginInstance(label: "deep", chain: try r.resolveThrows(FSANode.self, name: "deep0"))
            }
            registerChain(in: container, prefix: "deep", count: 250, counts: counts)
            let result = Result { () throws(DIError) in try container.resolveAllThrows((any FSAPlugin).self) }
            guard case .failure(.depthLimitExceeded(let path, _)) = result else {
                Issue.record("expected depthLimitExceeded, got \(result)")
                return
            }
            #expect(names(path) == ["p3"] + names(0..<200, prefix: "deep"))
            // The lenient form leaves the failing element out, or fails the call as a whole: never a wrong one.
            let lenient = container.resolveAll((any FSAPlugin).self).map(\.label)
            #expect(!lenient.contains("deep"))
        }
    }

    @Test("An element that calls resolveAll of its own type is a cycle, which fails the call")
    func recursiveOwnType() throws {
        let container = Container()
        for index in 0..<5 {
            container.register((any FSAPlugin).self, name: "p\(index)") { r in
                if index == 2 {
                    _ = r.resolveAll((any FSAPlugin).self)
                }
                return FSAPluginInstance(label: "p\(index)")
            }
        }
        let result = Result { () throws(DIError) in try container.resolveAllThrows((any FSAPlugin).self) }
        guard case .failure(.circularDependency(let path)) = result else {
            Issue.record("expected a cycle, got \(result)")
            return
        }
        #expect(names(path) == ["p2", "p2"])
        // The lenient form never hands out a wrong element.
        let lenient = container.resolveAll((any FSAPlugin).self).map(\.label)
        #expect(lenient.allSatisfy { ["p0", "p1", "p2", "p3", "p4"].contains($0) })
    }

    @Test("A throwing element: resolveAllThrows names it, resolveAll leaves it out, in order")
    func throwingElement() throws {
        let container = Container()
        for index in 0..<40 {
            container.register(String.self, name: "s\(index)") { _ in
                if index % 13 == 7 {
                    throw FSAFailure(depth: index)
                }
                return String(repeating: "x", count: index) + "#\(index)"
            }
        }
        let lenient = container.resolveAll(String.self)
        #expect(lenient == (0..<40).filter { $0 % 13 != 7 }.map { String(repeating: "x", count: $0) + "#\($0)" })
        let result = Result { () throws(DIError) in try container.resolveAllThrows(String.self) }
        guard case .failure(.factoryFailed(let key, let path, _)) = result else {
            Issue.record("expected factoryFailed, got \(result)")
            return
        }
        #expect(key.name == "s7")
        #expect(path.isEmpty)
    }

    @Test("Across parent and child: the child's names replace the parent's in place, also when changed meanwhile")
    func parentAndChild() throws {
        let parent = Container()
        let child = Container(parent: parent)
        unowned let unownedParent = parent
        for name in ["a", "b", "c", "d"] {
            parent.register((any FSAPlugin).self, name: name) { _ in FSAPluginInstance(label: "parent \(name)") }
        }
        child.register((any FSAPlugin).self, name: "b") { _ in
            // Replaces the parent's "c", later in the walk; the child's "b" shadows the parent's anyway.
            unownedParent.register((any FSAPlugin).self, name: "c") { _ in FSAPluginInstance(label: "parent c2") }
            unownedParent.register((any FSAPlugin).self, name: "b") { _ in FSAPluginInstance(label: "parent b2") }
            return FSAPluginInstance(label: "child b")
        }
        child.register((any FSAPlugin).self, name: "e") { _ in FSAPluginInstance(label: "child e") }
        child.register((any FSAPlugin).self, name: nil) { _ in FSAPluginInstance(label: "child nil") }
        #expect(
            child.resolveAll((any FSAPlugin).self).map(\.label) == [
                "parent a", "child b", "parent c2", "parent d", "child e", "child nil",
            ]
        )
        #expect(
            parent.resolveAll((any FSAPlugin).self).map(\.label) == ["parent a", "parent b2", "parent c2", "parent d"]
        )
    }
}

// MARK: - Async resolves beside deep synchronous chains

@Suite("FrameStackAttack: async resolves and deep synchronous chains", .tags(.engine))
struct FrameStackAttackAsyncTests {
    @Test("An async chain 50 deep ends in a synchronous chain: the depths add up, the path names both")
    func asyncThenSyncDepth() async throws {
        let container = Container()
        let counts = FSACounts()
        registerChain(in: container, count: 160, counts: counts)
        for depth in 0..<50 {
            container.registerAsync(FSANode.self, name: "a\(depth)") { (r) async throws in
                await Task.yield()
                let next: FSANode
                if depth < 49 {
                    next = try await r.resolveAsync(FSANode.self, name: "a\(depth + 1)")
                } else {
                    // Synchronously, 150 links: 50 + 150 = 200 creations nested.
                    next = try r.resolveThrows(FSANode.self, name: "10")
                }
                return FSANode(depth: depth, serial: 0, next: next)
            }
        }
        let top = try await container.resolveAsync(FSANode.self, name: "a0")
        #expect(top.depths == Array(0..<50) + Array(10..<160))

        // One link more: past the limit, with the path through both.
        container.registerAsync(FSANode.self, name: "a49") { (r) async throws in
            FSANode(depth: 49, serial: 0, next: try r.resolveThrows(FSANode.self, name: "9"))
        }
        do throws(DIError) {
            _ = try await container.resolveAsync(FSANode.self, name: "a0")
            Issue.record("expected depthLimitExceeded")
        } catch .depthLimitExceeded(let path, _) {
            #expect(names(path) == names(0..<50, prefix: "a") + names(9..<160))
        } catch {
            Issue.record("expected depthLimitExceeded, got \(error)")
        }

        // A miss at the end of the synchronous chain names both paths.
        container.registerAsync(FSANode.self, name: "a49") { (r) async throws in
            _ = try r.resolveThrows(FSAMissing.self)
            return FSANode(depth: 49, serial: 0, next: nil)
        }
        do throws(DIError) {
            _ = try await container.resolveAsync(FSANode.self, name: "a0")
            Issue.record("expected notRegistered")
        } catch .notRegistered(_, let path, _) {
            #expect(names(path) == names(0..<50, prefix: "a"))
        } catch {
            Issue.record("expected notRegistered, got \(error)")
        }
    }

    @Test("Synchronous chains 130 deep between the awaits of an async chain, with .container links kept")
    func interleaved() async throws {
        let container = Container()
        let counts = FSACounts()
        registerChain(in: container, count: 130, scope: .container, counts: counts)
        container.registerAsync(FSANode.self, name: "async") { (r) async throws in
            var first: FSANode?
            for _ in 0..<4 {
                let chain = try r.resolveThrows(FSANode.self, name: "0")
                #expect(first == nil || first === chain)
                first = chain
                await Task.yield()
            }
            return FSANode(depth: -1, serial: 0, next: first)
        }
        let sync = try container.resolveThrows(FSANode.self, name: "0")
        let node = try await container.resolveAsync(FSANode.self, name: "async")
        #expect(node.next === sync)
        #expect(sync.depths == Array(0..<130))
        #expect(counts.totalMade == 130)
    }
}

// MARK: - Threads

@Suite("FrameStackAttack: deep chains on many threads", .tags(.concurrency, .engine), .hangLimit)
struct FrameStackAttackThreadTests {
    @Test("Threads resolve chains 130 deep through synchronize(), sharing one .container link")
    func deepChainsOnThreads() throws {
        let container = Container()
        let counts = FSACounts()
        // Links 0...99 are transient, 100 is .container, 101...129 graph.
        for depth in 0..<130 {
            let scope: ObjectScope = depth == 100 ? .container : depth < 100 ? .transient : .graph
            container.register(FSANode.self, name: "\(depth)") { r in
                counts.noteMade("\(depth)")
                return FSANode(
                    depth: depth,
                    serial: counts.next(),
                    next: depth == 129 ? nil : try r.resolveThrows(FSANode.self, name: "\(depth + 1)")
                )
            }
            .inObjectScope(scope)
        }
        let view = container.synchronize()
        final class Results: @unchecked Sendable {
            // @unchecked: written only under `lock`, read after every thread has ended.
            private let lock = NSLock()
            private(set) var shared: [Int] = Array(repeating: -1, count: 4)
            private(set) var ok: [Bool] = Array(repeating: false, count: 4)

            func set(_ thread: Int, shared value: Int, ok passed: Bool) {
                lock.withLock {
                    shared[thread] = value
                    ok[thread] = passed
                }
            }
        }
        let results = Results()
        onBigStackThreads(4) { thread in
            var ok = true
            var shared = -1
            for _ in 0..<5 {
                guard let top = try? view.resolveThrows(FSANode.self, name: "0") else {
                    ok = false
                    continue
                }
                let links = top.links
                ok = ok && top.depths == Array(0..<130)
                if shared == -1 {
                    shared = links[100].serial
                }
                ok = ok && links[100].serial == shared
            }
            results.set(thread, shared: shared, ok: ok)
        }
        #expect(results.ok == [true, true, true, true])
        #expect(Set(results.shared).count == 1)
        #expect(counts.made("100") == 1)
        #expect(counts.made("0") == 20)
    }

    @Test("Threads resolve deep chains while another resets the scope and re-registers a link in flight")
    func deepChainsWithDrops() throws {
        let container = Container()
        let counts = FSACounts()
        registerChain(in: container, count: 70, scope: .container, counts: counts)
        let view = container.synchronize()
        final class Results: @unchecked Sendable {
            // @unchecked: written only under `lock`, read after every thread has ended.
            private let lock = NSLock()
            private(set) var ok: [Bool] = Array(repeating: true, count: 4)

            func fail(_ thread: Int) {
                lock.withLock { ok[thread] = false }
            }
        }
        let results = Results()
        onBigStackThreads(4) { thread in
            for round in 0..<6 {
                if thread == 3 {
                    view.withContainer { c in
                        if round % 2 == 0 {
                            c.resetObjectScope(.container)
                        } else {
                            c.register(FSANode.self, name: "69") { _ in
                                FSANode(depth: 69, serial: counts.next(), next: nil)
                            }
                            .inObjectScope(.container)
                            .onDispose { node in counts.noteDisposed(node.serial) }
                        }
                    }
                    continue
                }
                guard let top = try? view.resolveThrows(FSANode.self, name: "0") else {
                    results.fail(thread)
                    continue
                }
                if top.depths != Array(0..<70) {
                    results.fail(thread)
                }
            }
        }
        #expect(results.ok == [true, true, true, true])
        // Afterwards the scope is consistent: a chain resolved twice is the same chain.
        let first = try view.resolveThrows(FSANode.self, name: "0")
        let second = try view.resolveThrows(FSANode.self, name: "0")
        #expect(first === second)
        #expect(first.depths == Array(0..<70))
    }

    @Test("Tasks resolve an async chain through synchronize() while threads resolve synchronous chains")
    func asyncAndThreads() async throws {
        let container = Container()
        let counts = FSACounts()
        registerChain(in: container, count: 60, counts: counts)
        for depth in 0..<20 {
            container.registerAsync(FSANode.self, name: "a\(depth)") { (r) async throws in
                await Task.yield()
                let next: FSANode =
                    depth < 19
                    ? try await r.resolveAsync(FSANode.self, name: "a\(depth + 1)")
                    : try r.resolveThrows(FSANode.self, name: "0")
                return FSANode(depth: depth, serial: 0, next: next)
            }
        }
        let view = container.synchronize()
        let depths = try await withThrowingTaskGroup(of: [Int].self) { group in
            for index in 0..<4 {
                if index % 2 == 0 {
                    group.addTask { try await view.resolveAsync(FSANode.self, name: "a0").depths }
                } else {
                    group.addTask { try view.resolveThrows(FSANode.self, name: "0").depths }
                }
            }
            var all: [[Int]] = []
            for try await result in group {
                all.append(result)
            }
            return all
        }
        #expect(depths.filter { $0 == Array(0..<20) + Array(0..<60) }.count == 2)
        #expect(depths.filter { $0 == Array(0..<60) }.count == 2)
    }
}

// MARK: - .multiton keys

private struct FSAPoint: Hashable {
    let x: Int
    let y: String
}

private enum FSAShape: Hashable {
    case none
    case circle(Double)
    case named(String, Int)
}

/// Every value hashes alike: equality alone tells them apart.
private struct FSACollider: Hashable {
    let value: Int
    static func == (lhs: FSACollider, rhs: FSACollider) -> Bool { lhs.value == rhs.value }
    func hash(into hasher: inout Hasher) { hasher.combine(0) }
}

private final class FSAKept {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

/// Resolves `values` in order through `resolve` and checks each against the oracle: the instance of the
/// first earlier value `AnyHashable` finds equal, else a new one.
private func checkAgainstAnyHashable<Value>(
    _ values: [Value],
    hashable: (Value) -> AnyHashable,
    resolve: (Value) throws -> FSAKept,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    var seen: [(AnyHashable, FSAKept)] = []
    for (index, value) in values.enumerated() {
        let instance = try resolve(value)
        let key = hashable(value)
        if let earlier = seen.first(where: { $0.0 == key }) {
            #expect(instance === earlier.1, "value \(index) (\(value)) should hit", sourceLocation: sourceLocation)
        } else {
            #expect(
                seen.allSatisfy { $0.1 !== instance },
                "value \(index) (\(value)) should miss",
                sourceLocation: sourceLocation
            )
            seen.append((key, instance))
        }
    }
}

@Suite("FrameStackAttack: .multiton keys as AnyHashable compares them", .tags(.engine))
struct FrameStackAttackMultitonTests {
    private func multiton<Argument>(_: Argument.Type, in container: Container, counts: FSACounts, name: String? = nil) {
        container.register(FSAKept.self, name: name) { (_, _: Argument) in FSAKept(serial: counts.next()) }
            .inObjectScope(.multiton)
    }

    @Test("Int and String keys, thousands in one registration: each hits its own instance")
    func manyIntAndStringKeys() throws {
        let container = Container()
        let counts = FSACounts()
        multiton(Int.self, in: container, counts: counts)
        multiton(String.self, in: container, counts: counts)
        multiton(FSAPoint.self, in: container, counts: counts)
        var ints: [Int: FSAKept] = [:]
        var strings: [String: FSAKept] = [:]
        var points: [FSAPoint: FSAKept] = [:]
        let keys = (0..<3_000).map { $0 &* 2_654_435_761 } + [Int.min, Int.max, -1]
        for key in keys {
            ints[key] = try container.resolveThrows(FSAKept.self, argument: key)
            strings["k\(key)"] = try container.resolveThrows(FSAKept.self, argument: "k\(key)")
            points[FSAPoint(x: key, y: "\(key % 7)")] = try container.resolveThrows(
                FSAKept.self,
                argument: FSAPoint(x: key, y: "\(key % 7)")
            )
        }
        let made = counts.next()
        #expect(made == keys.count * 3 + 1)
        for key in keys.reversed() {
            #expect(try container.resolveThrows(FSAKept.self, argument: key) === ints[key])
            #expect(try container.resolveThrows(FSAKept.self, argument: "k\(key)") === strings["k\(key)"])
            #expect(
                try container.resolveThrows(FSAKept.self, argument: FSAPoint(x: key, y: "\(key % 7)"))
                    === points[FSAPoint(x: key, y: "\(key % 7)")]
            )
        }
        #expect(counts.next() == made + 1)
        // An Int and a String key of the same text are different registrations' keys; neither hits the other.
        #expect(
            try container.resolveThrows(FSAKept.self, argument: "5")
                !== container.resolveThrows(FSAKept.self, argument: 5)
        )
        // Canonically equivalent strings are equal Strings, and equal AnyHashables: one instance.
        #expect(AnyHashable("\u{E9}") == AnyHashable("e\u{301}"))
        #expect(
            try container.resolveThrows(FSAKept.self, argument: "caf\u{E9}")
                === container.resolveThrows(FSAKept.self, argument: "cafe\u{301}")
        )
        // Reset, then every key misses once more.
        container.resetObjectScope(.multiton)
        #expect(try container.resolveThrows(FSAKept.self, argument: keys[0]) !== ints[keys[0]])
    }

    @Test("Doubles: 0.0 and -0.0 are one key, each NaN a key of its own, as AnyHashable says")
    func doubles() throws {
        let container = Container()
        let counts = FSACounts()
        multiton(Double.self, in: container, counts: counts)
        multiton(Float.self, in: container, counts: counts)
        let doubles: [Double] = [
            0.0, -0.0, .nan, .nan, -.nan, 1.0, 1.0 + .ulpOfOne, .infinity, -.infinity, 0.1 + 0.2, 0.3,
            .leastNonzeroMagnitude, -0.0, .nan, Double(bitPattern: 0x7FF8_0000_0000_0001),
        ]
        try checkAgainstAnyHashable(doubles, hashable: { AnyHashable($0) }) { value in
            try container.resolveThrows(FSAKept.self, argument: value)
        }
        let floats: [Float] = [0.0, -0.0, .nan, 1.0, -0.0, .nan, .signalingNaN, 3.5]
        try checkAgainstAnyHashable(floats, hashable: { AnyHashable($0) }) { value in
            try container.resolveThrows(FSAKept.self, argument: value)
        }
        // Thousands of NaN keys: each resolve makes a new instance, and the table still finds the others.
        let zero = try container.resolveThrows(FSAKept.self, argument: 0.0 as Double)
        for _ in 0..<1_000 {
            _ = try container.resolveThrows(FSAKept.self, argument: Double.nan)
        }
        #expect(try container.resolveThrows(FSAKept.self, argument: -0.0 as Double) === zero)
    }

    @Test("Existential and AnyHashable arguments: equal across Int widths, Optional and Double as AnyHashable says")
    func existentialArguments() throws {
        let container = Container()
        let counts = FSACounts()
        multiton((any Hashable).self, in: container, counts: counts, name: "existential")
        multiton(AnyHashable.self, in: container, counts: counts, name: "anyHashable")
        let values: [any Hashable] = [
            1 as Int, 1 as Int8, 1 as UInt64, 1 as Int32, 1.0 as Double, 1.0 as Float, "1", Int?.some(1),
            AnyHashable(1 as UInt16), -1 as Int, -1 as Int8, UInt64.max, -1 as Int64, 0.0 as Double, -0.0 as Double,
            0 as Int, Double.nan, FSAPoint(x: 1, y: "1"), FSAShape.circle(1), FSAShape.circle(-0.0),
            FSAShape.circle(0.0), FSAShape.none, FSAShape.named("a", 1), Int?.none as any Hashable,
            String?.none as any Hashable, [1, 2] as [Int], [1, 2] as [Int8], Set([1, 2]), ["a": 1],
            true, 1 as UInt,
        ]
        try checkAgainstAnyHashable(values, hashable: { AnyHashable($0) }) { value in
            try container.resolveThrows(FSAKept.self, name: "existential", argument: value)
        }
        try checkAgainstAnyHashable(values.map { AnyHashable($0) }, hashable: { $0 }) { value in
            try container.resolveThrows(FSAKept.self, name: "anyHashable", argument: value)
        }
        // Resolved again in reverse, each still hits.
        try checkAgainstAnyHashable(values.reversed().map { AnyHashable($0) }, hashable: { $0 }) { value in
            try container.resolveThrows(FSAKept.self, name: "anyHashable", argument: value)
        }
        // Thousands of existential keys of mixed widths: Int n and Int16 n are one key.
        var kept: [AnyHashable: FSAKept] = [:]
        for index in 0..<1_500 {
            let instance = try container.resolveThrows(
                FSAKept.self,
                name: "existential",
                argument: (index + 10) as any Hashable
            )
            kept[AnyHashable(index + 10)] = instance
        }
        for index in 0..<1_500 {
            let narrow: any Hashable = index % 2 == 0 ? Int16(index + 10) : UInt32(index + 10)
            #expect(
                try container.resolveThrows(FSAKept.self, name: "existential", argument: narrow)
                    === kept[AnyHashable(index + 10)]
            )
        }
    }

    @Test("Optionals, enums, colliding hashes and several arguments hit and miss as AnyHashable says")
    func otherKinds() throws {
        let container = Container()
        let counts = FSACounts()
        multiton(Int?.self, in: container, counts: counts)
        multiton(FSAShape.self, in: container, counts: counts)
        multiton(FSACollider.self, in: container, counts: counts)
        try checkAgainstAnyHashable([nil, 0, nil, 1, 0, Int.min] as [Int?], hashable: { AnyHashable($0) }) { value in
            try container.resolveThrows(FSAKept.self, argument: value)
        }
        let shapes: [FSAShape] = [
            .none, .circle(0.0), .circle(-0.0), .circle(.nan), .circle(.nan), .named("x", 1), .named("x", 2),
            .named("x", 1), .none,
        ]
        try checkAgainstAnyHashable(shapes, hashable: { AnyHashable($0) }) { value in
            try container.resolveThrows(FSAKept.self, argument: value)
        }
        // 800 keys whose hashes all collide.
        let colliders = (0..<800).map { FSACollider(value: $0 % 400) }
        try checkAgainstAnyHashable(colliders, hashable: { AnyHashable($0) }) { value in
            try container.resolveThrows(FSAKept.self, argument: value)
        }

        // Several arguments: compared element by element, as AnyHashables.
        container.register(FSAKept.self, name: "two") { (_, _: Int, _: Double) in FSAKept(serial: counts.next()) }
            .inObjectScope(.multiton)
        container.register(FSAKept.self, name: "three") { (_, _: AnyHashable, _: String?, _: FSAShape) in
            FSAKept(serial: counts.next())
        }
        .inObjectScope(.multiton)
        container.register(FSAKept.self, name: "five") { (_, _: Int, _: Int, _: Int, _: Int, _: Double) in
            FSAKept(serial: counts.next())
        }
        .inObjectScope(.multiton)
        let pairs: [(Int, Double)] = [(1, 0.0), (1, -0.0), (1, .nan), (1, .nan), (2, 0.0), (1, 0.0), (0, 1.0)]
        try checkAgainstAnyHashable(pairs, hashable: { AnyHashable([AnyHashable($0.0), AnyHashable($0.1)]) }) { value in
            try container.resolveThrows(FSAKept.self, name: "two", arguments: value.0, value.1)
        }
        let triples: [(AnyHashable, String?, FSAShape)] = [
            (AnyHashable(1), nil, .none), (AnyHashable(Int8(1)), nil, .none), (AnyHashable(1.0), nil, .none),
            (AnyHashable(1), "", .none), (AnyHashable(UInt(1)), "", .none), (AnyHashable(1), nil, .circle(0)),
        ]
        try checkAgainstAnyHashable(
            triples,
            hashable: { AnyHashable([$0.0, AnyHashable($0.1), AnyHashable($0.2)]) }
        ) { value in
            try container.resolveThrows(FSAKept.self, name: "three", arguments: value.0, value.1, value.2)
        }
        let fives: [(Int, Int, Int, Int, Double)] = [
            (1, 2, 3, 4, 0.0), (1, 2, 3, 4, -0.0), (1, 2, 3, 5, 0.0), (1, 2, 3, 4, 0.0),
        ]
        try checkAgainstAnyHashable(
            fives,
            hashable: {
                AnyHashable([
                    AnyHashable($0.0), AnyHashable($0.1), AnyHashable($0.2), AnyHashable($0.3), AnyHashable($0.4),
                ])
            }
        ) { value in
            try container.resolveThrows(
                FSAKept.self,
                name: "five",
                arguments: value.0,
                value.1,
                value.2,
                value.3,
                value.4
            )
        }
    }

    @Test("A .multiton tree 190 deep: every level kept under its argument; a reset at the bottom keeps none")
    func deepMultitonTree() throws {
        try onBigStack { () throws in
            let container = Container()
            let counts = FSACounts()
            unowned let unownedContainer = container
            var resetAt: Int?
            container.register(FSANode.self) { (r, depth: Int) in
                if depth == resetAt {
                    unownedContainer.resetObjectScope(.multiton)
                }
                return FSANode(
                    depth: depth,
                    serial: counts.next(),
                    next: depth == 0 ? nil : try r.resolveThrows(FSANode.self, argument: depth - 1)
                )
            }
            .inObjectScope(.multiton)
            .onDispose { node in counts.noteDisposed(node.serial) }
            let top = try container.resolveThrows(FSANode.self, argument: 189)
            let links = top.links
            #expect(top.depths == Array((0...189).reversed()))
            for depth in [0, 15, 16, 17, 63, 64, 128, 189] {
                #expect(try container.resolveThrows(FSANode.self, argument: depth) === links[189 - depth])
            }
            // A key between levels never made misses once and is then kept.
            let fresh = try container.resolveThrows(FSANode.self, argument: 190)
            #expect(fresh.next === top)

            container.resetObjectScope(.multiton)
            #expect(links.allSatisfy { counts.disposed($0.serial) == 1 })
            resetAt = 0
            let dropped = try container.resolveThrows(FSANode.self, argument: 150)
            resetAt = nil
            // Every level was in flight when the bottom one reset the scope: none is kept, each ended once.
            #expect(dropped.links.allSatisfy { counts.disposed($0.serial) == 1 })
            #expect(try container.resolveThrows(FSANode.self, argument: 150) !== dropped)
        }
    }

    @Test("Control: a key equal to itself whose action throws is not kept, and dispose() leaves it alone")
    func failedActionReleasesInstance() throws {
        let (released, disposed) = try failedAction(argument: 1.5)
        #expect(released)
        #expect(disposed == 0)
    }

    // Was a defect: a key that is not equal to itself (a Double NaN, as AnyHashable compares it) was stored in
    // `byArguments` but never found again, so `discardIncomplete` could not drop the half-made instance: it
    // stayed kept, and `dispose()` later ran its disposal handler although it never completed.
    @Test("A NaN key whose action throws: its half-made instance is released, never disposed of")
    func failedActionWithNaNKey() throws {
        let (released, disposed) = try failedAction(argument: .nan)
        #expect(released)
        #expect(disposed == 0)
    }

    /// Resolves a `.multiton` instance under `argument` whose `initCompleted` action throws; returns whether
    /// the instance was released, and how often `dispose()` then disposed of it.
    private func failedAction(argument: Double) throws -> (released: Bool, disposed: Int) {
        final class Probe {
            weak var made: FSAKept?
            var serial = 0
        }
        let container = Container()
        let counts = FSACounts()
        let probe = Probe()
        container.register(FSAKept.self) { (_, _: Double) in FSAKept(serial: counts.next()) }
            .inObjectScope(.multiton)
            .initCompleted { _, kept in
                probe.made = kept
                probe.serial = kept.serial
                throw FSAFailure(depth: kept.serial)
            }
            .onDispose { kept in counts.noteDisposed(kept.serial) }
        let result = container.resolveResult(FSAKept.self, argument: argument)
        guard case .failure(.factoryFailed) = result else {
            Issue.record("expected factoryFailed, got \(result)")
            return (false, -1)
        }
        let released = probe.made == nil
        try container.dispose()
        return (released, counts.disposed(probe.serial))
    }

    @Test("dispose() ends .multiton instances newest first, a NaN key's in its place")
    func disposalOrderWithNaNKey() throws {
        let container = Container()
        let counts = FSACounts()
        container.register(FSAKept.self) { (_, _: Double) in FSAKept(serial: counts.next()) }
            .inObjectScope(.multiton)
            .onDispose { kept in counts.noteDisposed(kept.serial) }
        let serials = try [1.0, .nan, 2.0].map { try container.resolveThrows(FSAKept.self, argument: $0).serial }
        try container.dispose()
        // Was a defect: the NaN key's completion number was never written (`numberMultitonCompletion` looked
        // the key up again and missed), so it stayed 0 and its instance was disposed of last instead of second.
        #expect(counts.disposals == serials.reversed())
    }

    @Test("Control: a creation dropped by its own factory's reset is ended once, and not kept")
    func droppedCreationControl() throws {
        let (kept, afterCall, afterDispose) = try droppedCreation(argument: 2.5)
        #expect(!kept)
        #expect(afterCall == 1)
        #expect(afterDispose == 1)
    }

    // Was a defect: with a NaN key, `isEmpty` never found the dropped creation's instance, so the creation
    // stored it and did not note that it held it (`holdsDroppedInstance` stayed false): `endDropped` disposed
    // of it but left it in the scope, and `dispose()` disposed of it a second time.
    @Test("A NaN key's creation dropped by its own factory's reset: the instance is ended once, and not kept")
    func droppedCreationWithNaNKey() throws {
        let (kept, afterCall, afterDispose) = try droppedCreation(argument: .nan)
        #expect(afterCall == 1)
        #expect(!kept)
        #expect(afterDispose == 1)
    }

    /// Resolves a `.multiton` instance under `argument` whose factory resets the scope first; returns whether
    /// the instance is still kept after the call, and how often it was disposed of after the call and after
    /// `dispose()`.
    private func droppedCreation(argument: Double) throws -> (kept: Bool, afterCall: Int, afterDispose: Int) {
        final class Probe {
            weak var made: FSAKept?
        }
        let container = Container()
        let counts = FSACounts()
        unowned let unownedContainer = container
        let probe = Probe()
        container.register(FSAKept.self) { (_, _: Double) in
            unownedContainer.resetObjectScope(.multiton)
            let kept = FSAKept(serial: counts.next())
            probe.made = kept
            return kept
        }
        .inObjectScope(.multiton)
        .onDispose { kept in counts.noteDisposed(kept.serial) }
        var serial = 0
        do {
            let made = try container.resolveThrows(FSAKept.self, argument: argument)
            serial = made.serial
        }
        let kept = probe.made != nil
        let afterCall = counts.disposed(serial)
        try container.dispose()
        return (kept, afterCall, counts.disposed(serial))
    }

    @Test("Async resolves find the instance a synchronous resolve keeps under an equal AnyHashable")
    func asyncAndSyncShareKeys() async throws {
        let container = Container()
        let counts = FSACounts()
        multiton(AnyHashable.self, in: container, counts: counts)
        multiton(Double.self, in: container, counts: counts)
        let viaSync = try container.resolveThrows(FSAKept.self, argument: AnyHashable(7 as Int8))
        let viaAsync = try await container.resolveAsync(FSAKept.self, argument: AnyHashable(7 as Int))
        #expect(viaSync === viaAsync)
        let zero = try await container.resolveAsync(FSAKept.self, argument: -0.0 as Double)
        #expect(try container.resolveThrows(FSAKept.self, argument: 0.0 as Double) === zero)
    }
}

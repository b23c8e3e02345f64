import Foundation
import Testing

@testable import Keystone

// Attacks on the registration table's single allocation (`makeBuffers`, `bufferOffsets`, `deallocateBuffers`:
// `types`, `hot` and `buckets` in one block, freed through `types` when the table grows and when it is
// deallocated), on the room `dispose()` reserves for one instance per registration, on the completion numbers
// and generations read without dynamic exclusivity checks, and on disposal handlers kept as a value in the
// entry's extras. Tables of every size across the growth thresholds, names and forwarded keys, removals,
// growth from inside factories, `initCompleted` actions, disposal handlers and deinitializers, request-scope
// child containers made and dropped by the thousand, `.multiton` instances by the thousand, threads through
// `synchronize()`, and the order of disposal across parents, children, resets and async creations.

/// Counts the probes made and ended; safe to share between threads.
private final class Life: @unchecked Sendable {
    // @unchecked: both counts are used only under `lock`.
    private let lock = NSLock()
    private var bornCount = 0
    private var diedCount = 0

    func birth() {
        lock.lock()
        bornCount += 1
        lock.unlock()
    }

    func death() {
        lock.lock()
        diedCount += 1
        lock.unlock()
    }

    var born: Int {
        lock.lock()
        defer { lock.unlock() }
        return bornCount
    }

    var alive: Int {
        lock.lock()
        defer { lock.unlock() }
        return bornCount - diedCount
    }
}

/// A service instance, numbered by the test; counts itself in its `Life` and may act when it ends.
private class Probe {
    let id: Int
    private let life: Life?
    private let onDeinit: (() -> Void)?

    init(id: Int, life: Life?, onDeinit: (() -> Void)? = nil) {
        self.id = id
        self.life = life
        self.onDeinit = onDeinit
        life?.birth()
    }

    deinit {
        life?.death()
        onDeinit?()
    }
}

/// One distinct service type per `T`.
private final class Tagged<T>: Probe {}

/// The bits that make the distinct `T`s of `Tagged<T>`: `Bit0<Bit1<Int>>` and so on.
private final class Bit0<T> {}
private final class Bit1<T> {}

/// How one registration of a kind is made.
private struct Setup {
    var name: String?
    var scope: ObjectScope = .container
    var life: Life?
    /// Gets the id of each instance disposed of (`onDispose`).
    var disposed: SerialLog?
    /// Gets the id of each instance completed (its last `initCompleted` action).
    var completed: SerialLog?
    /// Also registers the instance as `Probe` under this name (`implements`).
    var forwardName: String?
    /// Runs in the factory, before the instance is made.
    var onCreate: ((any Resolver) -> Void)?
    /// Runs in an `initCompleted` action, before the completion is logged.
    var onCompleted: ((any Resolver) -> Void)?
    /// Runs in the disposal handler, after the disposal is logged.
    var onDisposed: (() -> Void)?
    /// Runs when the instance ends.
    var onDeinit: (() -> Void)?
}

/// A distinct service type `Tagged<T>`, with its registration and resolve compiled for it.
private struct ServiceKind: @unchecked Sendable {
    // @unchecked: the closures capture nothing.
    let type: Any.Type
    let register: (Container, Int, Setup) -> AnyObject
    let resolve: (any Resolver, String?) -> Probe?
    let registerAsync: (Container, Int, Life, SerialLog, SerialLog) -> Void
    let resolveAsync: (any Resolver) async throws -> Probe
}

private func serviceKind<T>(_: T.Type) -> ServiceKind {
    ServiceKind(
        type: Tagged<T>.self,
        register: { container, id, setup in
            let entry = container.register(Tagged<T>.self, name: setup.name) { resolver in
                setup.onCreate?(resolver)
                return Tagged<T>(id: id, life: setup.life, onDeinit: setup.onDeinit)
            }
            .inObjectScope(setup.scope)
            if let onCompleted = setup.onCompleted {
                entry.initCompleted { resolver, _ in onCompleted(resolver) }
            }
            if let completed = setup.completed {
                entry.initCompleted { _, box in completed.add(box.id) }
            }
            if let disposed = setup.disposed {
                entry.onDispose { disposed.add($0.id) }
            }
            if let onDisposed = setup.onDisposed {
                entry.onDispose { _ in onDisposed() }
            }
            if let forwardName = setup.forwardName {
                entry.implements(Probe.self, name: forwardName)
            }
            return entry
        },
        resolve: { resolver, name in resolver.resolve(Tagged<T>.self, name: name) },
        registerAsync: { container, id, life, made, disposed in
            container.registerAsync(Tagged<T>.self) { _ in
                await Task.yield()
                made.add(id)
                return Tagged<T>(id: id, life: life)
            }
            .inObjectScope(.container)
            .onDispose { disposed.add($0.id) }
            .onDisposeAsync { disposed.add(asyncMark + $0.id) }
        },
        resolveAsync: { resolver in try await resolver.resolveAsync(Tagged<T>.self) }
    )
}

/// Added to an id by the asynchronous disposal handlers.
private let asyncMark = 1_000_000

private let kindLimit = 5_200

/// `Tagged<T>` for `T` and the types below it in a binary tree of `Bit0` and `Bit1`, depth first, until there
/// are `kindLimit`: every path is a different type.
private func collectKinds<T>(_: T.Type, depth: Int, into found: inout [ServiceKind]) {
    guard found.count < kindLimit else { return }
    found.append(serviceKind(T.self))
    guard depth < 13 else { return }
    collectKinds(Bit0<T>.self, depth: depth + 1, into: &found)
    collectKinds(Bit1<T>.self, depth: depth + 1, into: &found)
}

private let kinds: [ServiceKind] = {
    var found: [ServiceKind] = []
    collectKinds(Int.self, depth: 0, into: &found)
    return found
}()

#if os(Linux)
    /// glibc's `malloc_usable_size` (`<malloc.h>`, which the Glibc module leaves out): how many bytes the block
    /// `pointer` starts can hold.
    @_silgen_name("malloc_usable_size")
    private func mallocUsableSize(_ pointer: UnsafeMutableRawPointer) -> Int
#endif

/// A weak reference, to see that something was released.
private struct Weak {
    weak var object: AnyObject?
}

/// Checks what ARCHITECTURE.md ("Exclusivity and casts") promises of the table's buffers: `hot` and `buckets`
/// after `types`, each at a multiple of its alignment, not overlapping, inside the one allocation that starts
/// at `types`; a position's hot slot and bucket initialized exactly when its type is set, the hot slot
/// holding the single registration that is not forwarded; `count` the number of registrations walked.
private func checkTable(_ table: RegistrationTable, _ comment: Comment? = nil) {
    let capacity = table.capacity
    #expect(capacity >= 16 && capacity & (capacity - 1) == 0, comment)
    #expect(table.layout.occupied * 4 <= capacity * 3, comment)
    let typesStart = UInt(bitPattern: table.types)
    let hotStart = UInt(bitPattern: table.hot)
    let bucketsStart = UInt(bitPattern: table.layout.buckets)
    #expect(typesStart % UInt(MemoryLayout<UInt>.alignment) == 0, comment)
    #expect(hotStart % UInt(MemoryLayout<RegistrationTable.HotSlot>.alignment) == 0, comment)
    #expect(bucketsStart % UInt(MemoryLayout<RegistrationTable.Registrations?>.alignment) == 0, comment)
    #expect(hotStart >= typesStart + UInt(capacity * MemoryLayout<UInt>.stride), comment)
    #expect(bucketsStart >= hotStart + UInt(capacity * MemoryLayout<RegistrationTable.HotSlot>.stride), comment)
    let end = bucketsStart + UInt(capacity * MemoryLayout<RegistrationTable.Registrations?>.stride)
    #if os(Linux)
        // The block `types` starts is large enough for all three parts.
        #expect(mallocUsableSize(UnsafeMutableRawPointer(table.types)) >= Int(end - typesStart), comment)
    #endif
    var walked = 0
    table.forEach { _ in walked += 1 }
    #expect(walked == table.count, comment)
    var claimed = 0
    var wrongHot = 0
    for index in 0..<capacity where table.types[index] != 0 {
        claimed += 1
        let hotEntry = table.hot[index].entry
        switch table.bucketContents(at: index) {
        case .some(.one(let slot)) where !slot.isForwarded:
            if hotEntry !== (slot.entry as AnyObject) {
                wrongHot += 1
            }
        default:
            if hotEntry != nil {
                wrongHot += 1
            }
        }
    }
    #expect(claimed == table.layout.occupied, comment)
    #expect(wrongHot == 0, comment)
}

/// The key `register(kinds[index]...)` registers under.
private func key(of index: Int, name: String? = nil) -> ServiceKey {
    ServiceKey(serviceType: kinds[index].type, name: name, argumentsType: Void.self, argumentCount: 0)
}

@Suite("Table buffer attacks", .serialized, .hangLimit, .tags(.engine))
struct TableBufferAttackTests {
    @Test("The generated service types are all distinct")
    func kindsAreDistinct() {
        #expect(kinds.count == kindLimit)
        #expect(Set(kinds.map { ObjectIdentifier($0.type) }).count == kindLimit)
    }

    @Test(
        "Tables of every size across the growth thresholds resolve, dispose newest first and release everything",
        arguments: [0, 1, 12, 13, 15, 16, 17, 24, 25, 31, 32, 33, 1_000, 5_000]
    )
    func everySize(count: Int) throws {
        let life = Life()
        let disposed = SerialLog()
        let completed = SerialLog()
        var entries: [Weak] = []
        weak var released: Container?
        var forwards = 0
        do {
            let container = Container()
            released = container
            for index in 0..<count {
                var setup = Setup(life: life, disposed: disposed, completed: completed)
                // Every third a transient, every fourth also reached as `Probe` under its number.
                setup.scope = index % 3 == 2 ? .transient : .container
                if index % 4 == 0 {
                    setup.forwardName = "\(index)"
                    forwards += 1
                }
                entries.append(Weak(object: kinds[index].register(container, index, setup)))
            }
            #expect(container.table.count == count + forwards)
            checkTable(container.table, "size \(count)")
            var wrong: [Int] = []
            for index in (0..<count).reversed() {
                let first = kinds[index].resolve(container, nil)
                let second = kinds[index].resolve(container, nil)
                if first?.id != index || second?.id != index || (index % 3 == 2) == (first === second) {
                    wrong.append(index)
                }
                if index % 4 == 0 {
                    let forwarded = container.resolve(Probe.self, name: "\(index)")
                    if forwarded?.id != index || (index % 3 != 2 && forwarded !== first) {
                        wrong.append(-index - 1)
                    }
                }
            }
            #expect(wrong.isEmpty, "wrong instances: \(wrong.prefix(20))")
            let kept = completed.all.filter { $0 % 3 != 2 }
            #expect(kept.count == count - count / 3)
            try container.dispose()
            #expect(disposed.all == kept.reversed())
            #expect(life.alive == 0)
            // A second dispose() ends nothing; the registrations stay and make new instances.
            try container.dispose()
            #expect(disposed.all.count == kept.count)
            if count > 0 {
                #expect(kinds[count - 1].resolve(container, nil)?.id == count - 1)
            }
            checkTable(container.table, "size \(count) after dispose()")
        }
        #expect(released == nil)
        #expect(entries.allSatisfy { $0.object == nil })
        #expect(life.alive == 0)
    }

    @Test("Buckets of every size around the name index, with removals, re-registrations and removeAll()")
    func bucketsAndRemovals() throws {
        let life = Life()
        let disposed = SerialLog()
        var entries: [Weak] = []
        let container = Container()
        // Type `index` has `index` names besides its unnamed registration: buckets of 1 to 40 slots.
        for index in 0..<40 {
            let setup = Setup(life: life, disposed: disposed)
            entries.append(Weak(object: kinds[index].register(container, index * 100, setup)))
            for name in 0..<index {
                var named = setup
                named.name = "n\(name)"
                entries.append(Weak(object: kinds[index].register(container, index * 100 + name + 1, named)))
            }
        }
        #expect(container.table.count == 40 + 39 * 40 / 2)
        checkTable(container.table, "filled")
        var wrong: [String] = []
        for index in 0..<40 {
            for name in 0..<index where kinds[index].resolve(container, "n\(name)")?.id != index * 100 + name + 1 {
                wrong.append("\(index)/n\(name)")
            }
            if kinds[index].resolve(container, nil)?.id != index * 100 {
                wrong.append("\(index)")
            }
        }
        #expect(wrong.isEmpty, "wrong: \(wrong.prefix(20))")
        #expect(life.alive == 40 + 39 * 40 / 2)
        // Remove every third name: the bucket's index is rebuilt, buckets of two become one again.
        var removed: Set<Int> = []
        for index in 0..<40 {
            for name in stride(from: 0, to: index, by: 3) {
                #expect(container.unregister(key(of: index, name: "n\(name)")))
                removed.insert(index * 100 + name + 1)
            }
        }
        #expect(!container.unregister(key(of: 3, name: "n0")))
        #expect(Set(disposed.all) == removed)
        #expect(disposed.all.count == removed.count)
        #expect(container.table.count == 40 + 39 * 40 / 2 - removed.count)
        checkTable(container.table, "after removals")
        wrong = []
        for index in 0..<40 {
            for name in 0..<index {
                let id = kinds[index].resolve(container, "n\(name)")?.id
                let expected = removed.contains(index * 100 + name + 1) ? nil : index * 100 + name + 1
                if id != expected {
                    wrong.append("\(index)/n\(name): \(String(describing: id))")
                }
            }
        }
        #expect(wrong.isEmpty, "wrong after removals: \(wrong.prefix(20))")
        // The removed names come back with other factories.
        for index in 0..<40 {
            for name in stride(from: 0, to: index, by: 3) {
                _ = kinds[index].register(container, 50_000 + index, Setup(name: "n\(name)", life: life))
            }
        }
        #expect(container.table.count == 40 + 39 * 40 / 2)
        checkTable(container.table, "names back")
        #expect(kinds[39].resolve(container, "n36")?.id == 50_039)
        #expect(kinds[39].resolve(container, "n37")?.id == 3_938)
        // removeAll() ends every kept instance once and releases every entry; the table then serves others.
        let disposedBefore = disposed.all.count
        container.removeAll()
        #expect(container.table.count == 0)
        checkTable(container.table, "after removeAll()")
        #expect(disposed.all.count - disposedBefore == 40 + 39 * 40 / 2 - removed.count)
        #expect(life.alive == 0)
        #expect(entries.allSatisfy { $0.object == nil })
        for index in 0..<40 {
            #expect(kinds[index].resolve(container, nil) == nil)
        }
        for index in 40..<340 {
            _ = kinds[index].register(container, index, Setup(life: life))
        }
        #expect(container.table.count == 300)
        checkTable(container.table, "others after removeAll()")
        #expect((40..<340).allSatisfy { kinds[$0].resolve(container, nil)?.id == $0 })
        try container.dispose()
        #expect(life.alive == 0)
    }

    @Test("The table grows from a factory, an initCompleted action, a disposal handler and a deinitializer")
    func growthFromCallbacks() throws {
        let life = Life()
        let disposed = SerialLog()
        let completed = SerialLog()
        weak var released: Container?
        do {
            let container = Container()
            released = container
            func setup(_ configure: (inout Setup) -> Void = { _ in }) -> Setup {
                var made = Setup(life: life, disposed: disposed, completed: completed)
                configure(&made)
                return made
            }
            func registerRange(_ range: Range<Int>, in target: Container) {
                for index in range {
                    _ = kinds[index].register(target, index, setup())
                }
            }
            // kinds[0]'s factory registers 200 types and resolves the first.
            _ = kinds[0].register(
                container,
                0,
                setup {
                    $0.onCreate = { [unowned container] resolver in
                        registerRange(100..<300, in: container)
                        _ = kinds[100].resolve(resolver, nil)
                    }
                }
            )
            // kinds[1]'s initCompleted action registers 200 more and resolves them all.
            _ = kinds[1].register(
                container,
                1,
                setup {
                    $0.onCompleted = { [unowned container] resolver in
                        registerRange(300..<500, in: container)
                        for index in 300..<500 {
                            _ = kinds[index].resolve(resolver, nil)
                        }
                    }
                }
            )
            // kinds[2]'s disposal handler registers and resolves 200 more while dispose() runs.
            _ = kinds[2].register(
                container,
                2,
                setup {
                    $0.onDisposed = { [unowned container] in
                        registerRange(500..<700, in: container)
                        for index in 500..<700 {
                            _ = kinds[index].resolve(container, nil)
                        }
                    }
                }
            )
            // kinds[3]'s instance registers and resolves 200 more when dispose() lets go of it.
            _ = kinds[3].register(
                container,
                3,
                setup {
                    $0.onDeinit = { [unowned container] in
                        registerRange(700..<900, in: container)
                        for index in 700..<900 {
                            _ = kinds[index].resolve(container, nil)
                        }
                    }
                }
            )
            for index in 0..<4 {
                #expect(kinds[index].resolve(container, nil)?.id == index)
            }
            #expect((100..<500).allSatisfy { kinds[$0].resolve(container, nil)?.id == $0 })
            #expect(container.table.count == 404)
            checkTable(container.table, "grown by a factory and an action")
            let firstRound = completed.all
            #expect(Set(firstRound) == Set([0, 1, 2, 3] + Array(100..<500)))
            #expect(firstRound.count == 404)
            try container.dispose()
            #expect(disposed.all == firstRound.reversed())
            // The handler's and the deinitializer's types were registered and resolved meanwhile.
            #expect(container.table.count == 804)
            checkTable(container.table, "grown by a handler and a deinitializer")
            let secondRound = Array(completed.all.dropFirst(firstRound.count))
            #expect(Set(secondRound) == Set(500..<900))
            #expect(life.alive == 400)
            try container.dispose()
            #expect(Array(disposed.all.dropFirst(firstRound.count)) == secondRound.reversed())
            #expect(life.alive == 0)
        }
        #expect(released == nil)
        #expect(life.alive == 0)
    }

    @Test("A factory that disposes of its own container, then grows the table, mid-resolve")
    func disposeAndGrowInFactory() throws {
        let life = Life()
        let disposed = SerialLog()
        weak var released: Container?
        do {
            let container = Container()
            released = container
            _ = kinds[1].register(container, 1, Setup(life: life, disposed: disposed))
            var outer = Setup(life: life, disposed: disposed)
            outer.onCreate = { [unowned container] resolver in
                _ = kinds[1].resolve(resolver, nil)
                do {
                    try container.dispose()
                } catch {
                    Issue.record("dispose() in a factory: \(error)")
                }
                for index in 2..<300 {
                    _ = kinds[index].register(container, index, Setup(life: life, disposed: disposed))
                    _ = kinds[index].resolve(resolver, nil)
                }
            }
            _ = kinds[0].register(container, 0, outer)
            #expect(kinds[0].resolve(container, nil)?.id == 0)
            // The dependency made before the dispose() was ended by it, once.
            #expect(disposed.all.first == 1)
            #expect(disposed.all.filter { $0 == 1 }.count == 1)
            #expect(container.table.count == 300)
            checkTable(container.table, "grown after a dispose() in a factory")
            #expect((2..<300).allSatisfy { kinds[$0].resolve(container, nil)?.id == $0 })
            try container.dispose()
            // Every instance made was ended once, whether the container kept it or not.
            #expect(disposed.all.count == life.born)
            #expect(Set(disposed.all) == Set(0..<300))
            #expect(life.alive == 0)
        }
        #expect(released == nil)
        #expect(life.alive == 0)
    }

    @Test("Request-scope children made, filled, disposed of and dropped by the thousand")
    func requestScopes() throws {
        let app = Container()
        let appLife = Life()
        let appDisposed = SerialLog()
        _ = kinds[0].register(app, -1, Setup(life: appLife, disposed: appDisposed))
        let life = Life()
        var failures: [String] = []
        for request in 0..<3_000 {
            let disposed = SerialLog()
            let completed = SerialLog()
            // 1 to 40 registrations: no growth, one, or two.
            let size = 1 + request % 40
            weak var released: Container?
            do {
                let child = Container(parent: app)
                released = child
                for index in 1...size {
                    var setup = Setup(life: life, disposed: disposed, completed: completed)
                    setup.scope = index % 5 == 0 ? .transient : .container
                    _ = kinds[index].register(child, request * 100 + index, setup)
                }
                for index in (1...size).reversed() where kinds[index].resolve(child, nil)?.id != request * 100 + index {
                    failures.append("request \(request): kind \(index)")
                }
                if kinds[0].resolve(child, nil)?.id != -1 {
                    failures.append("request \(request): the app's instance")
                }
                if request % 3 == 0 {
                    try child.dispose()
                    let kept = completed.all.filter { $0 % 5 != 0 }
                    if disposed.all != kept.reversed() {
                        failures.append("request \(request): disposed \(disposed.all), completed \(kept)")
                    }
                    if life.alive != 0 {
                        failures.append("request \(request): \(life.alive) alive after dispose()")
                    }
                }
            }
            if released != nil || life.alive != 0 {
                failures.append("request \(request): child or \(life.alive) instances left")
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
        #expect(appLife.born == 1)
        #expect(appDisposed.all.isEmpty)
        try app.dispose()
        #expect(appDisposed.all == [-1])
        #expect(appLife.alive == 0)
    }

    @Test("dispose() with thousands of .multiton instances, more than registrations, newest first, once each")
    func manyMultitons() throws {
        let container = Container()
        let life = Life()
        let disposed = SerialLog()
        let completed = SerialLog()
        container.register(Probe.self) { (resolver: any Resolver, argument: Int) in
            // Half depend on one of the other half: the dependency completes first.
            if argument >= 1_500 {
                _ = resolver.resolve(Probe.self, argument: argument - 1_500)
            }
            return Probe(id: argument, life: life)
        }
        .inObjectScope(.multiton)
        .initCompleted { _, probe in completed.add(probe.id) }
        .onDispose { disposed.add($0.id) }
        for index in 0..<20 {
            _ = kinds[index].register(
                container,
                10_000 + index,
                Setup(life: life, disposed: disposed, completed: completed)
            )
        }
        // Nothing kept yet: dispose() ends nothing.
        try container.dispose()
        #expect(disposed.all.isEmpty)
        var wrong: [Int] = []
        for step in 0..<3_000 {
            let argument = step * 7_919 % 3_000
            if container.resolve(Probe.self, argument: argument)?.id != argument {
                wrong.append(argument)
            }
            if step % 150 == 0, kinds[step / 150].resolve(container, nil)?.id != 10_000 + step / 150 {
                wrong.append(-step)
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
        #expect(life.alive == 3_020)
        #expect(completed.all.count == 3_020)
        try container.dispose()
        #expect(disposed.all == completed.all.reversed())
        #expect(life.alive == 0)
        // Made again after dispose(): only those are ended by the next.
        #expect(container.resolve(Probe.self, argument: 2_000)?.id == 2_000)
        try container.dispose()
        #expect(Array(disposed.all.dropFirst(3_020)) == [2_000, 500])
        #expect(life.alive == 0)
    }

    @Test("Completion order across a parent and its child, dispose() of each, and resetObjectScope")
    func completionsAcrossHierarchy() throws {
        let parent = Container()
        let child = Container(parent: parent)
        let life = Life()
        let disposed = SerialLog()
        let completed = SerialLog()
        let setup = Setup(life: life, disposed: disposed, completed: completed)
        _ = kinds[0].register(parent, 0, setup)
        _ = kinds[1].register(child, 1, setup)
        var outer = setup
        // kinds[2], the child's, needs the parent's kinds[0] then the child's kinds[1].
        outer.onCreate = { resolver in
            _ = kinds[0].resolve(resolver, nil)
            _ = kinds[1].resolve(resolver, nil)
        }
        _ = kinds[2].register(child, 2, outer)
        _ = kinds[3].register(parent, 3, setup)
        #expect(kinds[3].resolve(child, nil)?.id == 3)
        #expect(kinds[2].resolve(child, nil)?.id == 2)
        #expect(completed.all == [3, 0, 1, 2])
        try child.dispose()
        #expect(disposed.all == [2, 1])
        try parent.dispose()
        #expect(disposed.all == [2, 1, 0, 3])
        #expect(life.alive == 0)
        // Made again in another order; a reset from the child drops the parent's too, newest first.
        #expect(kinds[2].resolve(child, nil)?.id == 2)
        #expect(kinds[3].resolve(child, nil)?.id == 3)
        child.resetObjectScope(.container)
        #expect(Array(disposed.all.dropFirst(4)) == [3, 2, 1, 0])
        #expect(life.alive == 0)
        #expect(kinds[1].resolve(child, nil)?.id == 1)
        #expect(kinds[0].resolve(child, nil)?.id == 0)
        #expect(kinds[2].resolve(child, nil)?.id == 2)
        try parent.dispose()
        try child.dispose()
        #expect(Array(disposed.all.dropFirst(8)) == [0, 2, 1])
        #expect(life.alive == 0)
    }

    @Test("Async .container creations: disposeAsync() in completion order, once each, parent and child apart")
    func asyncCompletions() async throws {
        let parent = Container()
        let child = Container(parent: parent)
        let life = Life()
        let made = SerialLog()
        let disposed = SerialLog()
        for index in 0..<10 {
            kinds[index].registerAsync(parent, index, life, made, disposed)
            kinds[10 + index].registerAsync(child, 10 + index, life, made, disposed)
        }
        for index in 0..<10 {
            #expect(try await kinds[10 + index].resolveAsync(child).id == 10 + index)
            #expect(try await kinds[9 - index].resolveAsync(child).id == 9 - index)
        }
        let order = made.all
        try await child.disposeAsync()
        let childOrder = order.filter { $0 >= 10 }.reversed()
        #expect(disposed.all == childOrder.flatMap { [$0, asyncMark + $0] })
        // A reset from the child ends the parent's, synchronous handlers only, newest first.
        child.resetObjectScope(.container)
        let parentOrder = order.filter { $0 < 10 }.reversed()
        #expect(Array(disposed.all.dropFirst(20)) == Array(parentOrder))
        #expect(life.alive == 0)
        // Many tasks at once: one creation per registration, each ended once.
        let view = child.synchronize()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<60 {
                group.addTask { try await kinds[task % 20].resolveAsync(view).id }
            }
            for try await id in group {
                #expect((0..<20).contains(id))
            }
        }
        let second = Array(made.all.dropFirst(20))
        #expect(second.sorted() == Array(0..<20))
        try await child.disposeAsync()
        try await parent.disposeAsync()
        let ended = Array(disposed.all.dropFirst(30)).filter { $0 < asyncMark }
        #expect(ended.sorted() == Array(0..<20))
        #expect(life.alive == 0)
    }

    @Test(
        "Threads resolve while another grows the table through withContainer and a third disposes and resets",
        .tags(.concurrency)
    )
    func threadsWhileGrowing() throws {
        let life = Life()
        let disposed = SerialLog()
        let container = Container()
        for index in 0..<50 {
            _ = kinds[index].register(container, index, Setup(life: life, disposed: disposed))
        }
        let view = container.synchronize()
        let failures = EventLog()
        let grown = 650
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            switch worker {
            case 0:
                for batch in 0..<24 {
                    let range = (50 + batch * 25)..<(75 + batch * 25)
                    view.withContainer { container in
                        for index in range {
                            _ = kinds[index].register(container, index, Setup(life: life, disposed: disposed))
                        }
                    }
                    for index in range where kinds[index].resolve(view, nil)?.id != index {
                        failures.record("grown kind \(index)")
                    }
                }
            case 3:
                for step in 0..<200 {
                    view.withContainer { container in
                        do {
                            if step % 4 == 0 {
                                container.resetObjectScope(.container)
                            } else {
                                try container.dispose()
                            }
                        } catch {
                            failures.record("dispose: \(error)")
                        }
                    }
                }
            default:
                for step in 0..<150 {
                    for index in 0..<50 where kinds[index].resolve(view, nil)?.id != index {
                        failures.record("kind \(index)")
                    }
                    let late = 50 + (step * 13 + worker) % (grown - 50)
                    if let id = kinds[late].resolve(view, nil)?.id, id != late {
                        failures.record("late kind \(late): \(id)")
                    }
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(10))")
        view.withContainer { container in
            #expect(container.table.count == grown)
            checkTable(container.table, "after threads")
        }
        try container.dispose()
        #expect(life.alive == 0)
        // Every instance made was ended once, by a dispose() or a reset.
        #expect(disposed.all.count == life.born)
    }
}

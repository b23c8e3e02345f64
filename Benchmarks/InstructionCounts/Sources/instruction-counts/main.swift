// Runs one scenario `count` times: `instruction-counts SCENARIO COUNT`. gate.sh counts the instructions of two
// runs (1,000 and 2,000 operations, or N and 2N) and divides the difference by the smaller count, so that start-up
// and set-up cancel out.

import Dispatch
import Keystone

protocol Service: AnyObject {}
final class Plain: Service {}
final class Node: Service {
    let next: (any Service)?
    init(next: (any Service)?) { self.next = next }
}
final class Fan: Service {
    let parts: [Plain]
    init(parts: [Plain]) { self.parts = parts }
}
final class Shared: Sendable {}
struct Screen {
    @Inject var service: Shared
}
/// A struct argument of a `.multiton` registration.
struct Coordinates: Hashable {
    let x: Int
    let y: Int
}

/// The memory report's baseline: what a dictionary keyed by service type and name holds per registration.
struct DictionaryKey: Hashable {
    let type: ObjectIdentifier
    let name: String
}
final class DictionaryEntry {
    let make: () -> any Service
    init(_ make: @escaping () -> any Service) { self.make = make }
}

/// What the app-launch benchmark's generated files (`AppLaunch/`, linked from `Benchmarks/`) expect of the
/// suite they extend, with nothing of the benchmark harness.
enum KeystoneSuite {}
protocol AppObject: AnyObject {
    var dependencies: [any AppObject] { get }
}
struct AppCensus {
    var objects: Int
    var references: Int
}

/// Keeps a result alive until here, so that the optimizer cannot drop the work that made it.
@inline(never) func sink<T>(_ value: T) { withExtendedLifetime(value) {} }

/// Stops the run (valgrind then exits non-zero, and the gate with it) when a scenario's set-up does not do
/// what the scenario measures: a failing resolve must never pass for a cheap one.
func expect(_ condition: Bool, _ what: String) {
    if !condition {
        fatalError("scenario set-up: expected \(what)")
    }
}

// The async scenarios. Each is one function, set-up and loop, run on the global executor (as a server's
// request task runs) by one task that the top level starts and waits for: the task is set-up, and the loop
// awaits nothing but the operation measured.

/// Runs `operation` in a detached task and blocks the main thread until it ends. Not an `async` top level:
/// under valgrind 3.19 an async main (its main thread parked in libdispatch's `dispatch_main`) crashes
/// valgrind itself as the first worker thread starts, while a main thread blocked on a semaphore does not.
func runTask(_ operation: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await operation()
        done.signal()
    }
    done.wait()
}

/// `resolveAsync` of an async `.container` registration whose instance exists, through the synchronized
/// view a container shared by tasks is used through.
@concurrent func asyncCached(_ count: Int) async {
    let c = Container()
    c.registerAsync(Shared.self) { _ in Shared() }.inObjectScope(.container)
    let r = c.synchronize()
    let first = try? await r.resolveAsync(Shared.self)
    let second = try? await r.resolveAsync(Shared.self)
    expect(first != nil && first === second, "one shared instance")
    for _ in 0..<count {
        sink(try? await r.resolveAsync(Shared.self))
    }
}

/// `resolveAsync` of a synchronous transient registration, through the synchronized view.
@concurrent func asyncTransient(_ count: Int) async {
    let c = Container()
    c.register(Shared.self) { _ in Shared() }.inObjectScope(.transient)
    let r = c.synchronize()
    let first = try? await r.resolveAsync(Shared.self)
    let second = try? await r.resolveAsync(Shared.self)
    expect(first != nil && second != nil && first !== second, "a new instance per resolve")
    for _ in 0..<count {
        sink(try? await r.resolveAsync(Shared.self))
    }
}

/// `DIActor.resolve` of a shared service, from a task outside the actor: each resolve hops onto the actor
/// and back. An actor with a container of its own (`DIActor()`), which counts resolutions as every
/// `DIActor`'s does.
@concurrent func actorResolve(_ count: Int) async {
    let actor = DIActor()
    await actor.registerSharedActor(Shared.self) { Shared() }
    let first = await actor.resolve(Shared.self)
    let second = await actor.resolve(Shared.self)
    expect(first != nil && first === second, "one shared instance")
    for _ in 0..<count {
        sink(await actor.resolve(Shared.self))
    }
}

/// The request scope of the server example (`Examples/RequestScopes`), not gated: a child of the app
/// container (which validates scopes) whose default scope is `.container`, three registrations with
/// disposal handlers (one async),
/// its synchronized view, one resolve through the view whose factories resolve the rest, then
/// `disposeAsync()`. What the example's `/orders` route pays beyond its hand-wired twin.
final class ServerLedger: Sendable {}
final class ServerRequestID {
    let ledger: ServerLedger
    init(ledger: ServerLedger) { self.ledger = ledger }
}
final class ServerLogger: Sendable {}
final class ServerUnitOfWork {
    let id: ServerRequestID
    let logger: ServerLogger
    let store: Shared
    init(id: ServerRequestID, logger: ServerLogger, store: Shared) {
        self.id = id
        self.logger = logger
        self.store = store
    }
}
@concurrent func serverScope(_ count: Int) async {
    let app = Container()
    // As the example's app container: every resolve of its hierarchy is checked for captive dependencies.
    app.validatesScopes = true
    app.register(ServerLedger.self) { _ in ServerLedger() }.inObjectScope(.container)
    app.register(Shared.self) { _ in Shared() }.inObjectScope(.container)
    let appView = app.synchronize()
    expect(appView.resolve(Shared.self) != nil, "the app's store")
    func handle() async -> Bool {
        let request = Container(parent: app, defaultObjectScope: .container) { child in
            child.register(ServerRequestID.self) { r in
                ServerRequestID(ledger: try r.resolveThrows(ServerLedger.self))
            }
            .onDispose { sink($0) }
            child.register(ServerLogger.self) { _ in ServerLogger() }
                .onDisposeAsync { sink($0) }
            child.register(ServerUnitOfWork.self) { r in
                ServerUnitOfWork(
                    id: try r.resolveThrows(ServerRequestID.self),
                    logger: try r.resolveThrows(ServerLogger.self),
                    store: try r.resolveThrows(Shared.self)
                )
            }
            .onDispose { sink($0) }
        }
        let services = request.synchronize()
        let made = (try? services.resolveThrows(ServerUnitOfWork.self)) != nil
        do {
            try await request.disposeAsync()
        } catch {
            return false
        }
        return made
    }
    expect(await handle(), "one unit of work per request")
    for _ in 0..<count {
        sink(await handle())
    }
}

/// Row 24 of the wall-clock benchmark (not gated: its count depends on how the tasks are scheduled): a
/// new container whose async `.container` registration 100 child tasks resolve at once, one instance.
@concurrent func asyncFirstHundred(_ count: Int) async {
    for _ in 0..<count {
        let c = Container()
        c.registerAsync(Shared.self) { _ in
            await Task.yield()
            return Shared()
        }.inObjectScope(.container)
        let r = c.synchronize()
        let seen = await withTaskGroup(of: ObjectIdentifier?.self) { group in
            for _ in 0..<100 {
                group.addTask { (try? await r.resolveAsync(Shared.self)).map(ObjectIdentifier.init) }
            }
            var seen: Set<ObjectIdentifier?> = []
            for await identity in group { seen.insert(identity) }
            return seen.count
        }
        expect(seen == 1, "one instance")
    }
}

/// Row 24's baseline: 100 child tasks awaiting one `Task` that makes the instance.
@concurrent func baselineFirstHundred(_ count: Int) async {
    for _ in 0..<count {
        let made = Task { await Task.yield(); return Shared() }
        let seen = await withTaskGroup(of: ObjectIdentifier?.self) { group in
            for _ in 0..<100 {
                group.addTask { ObjectIdentifier(await made.value) }
            }
            var seen: Set<ObjectIdentifier?> = []
            for await identity in group { seen.insert(identity) }
            return seen.count
        }
        expect(seen == 1, "one instance")
    }
}

let names = (0..<5_000).map { "service-\($0)" }
let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]) else {
    fatalError("usage: instruction-counts SCENARIO COUNT")
}
Container.logHandler = nil

func repeatCount(_ body: () -> Void) {
    for _ in 0..<count {
        body()
    }
}

// Scenarios written as functions of their own: the driver's `main` stays the size it was, and the
// optimizer's inlining into it (which moves other rows, `inject` by 7%) does not change with them.

/// Not gated: `chain` while resolves are counted (as `DIActor`'s container counts them) or validated.
@inline(never) func observedChain(counting: Bool) {
    let c = Container()
    if counting {
        c.countsResolutions = true
    } else {
        c.validatesScopes = true
    }
    for index in 0..<10 {
        c.register((any Service).self, name: "\(index)") { r in
            Node(next: index < 9 ? r.resolve((any Service).self, name: "\(index + 1)") : nil)
        }
        .inObjectScope(.transient)
    }
    repeatCount { sink(c.resolve((any Service).self, name: "0")) }
}

/// `@Inject` of a service of the process-wide container, read as a view is made.
@inline(never) func injectProperty() {
    DependencyRegistry.register { Shared() }
    repeatCount { sink(Screen()) }
}

/// A `.multiton` hit whose one argument is a struct: its key is a box of the struct's type.
@inline(never) func multitonHitWithStruct() {
    let c = Container()
    c.register((any Service).self) { (_: any Resolver, _: Coordinates) in Plain() }.inObjectScope(.multiton)
    let first = c.resolve((any Service).self, argument: Coordinates(x: 1, y: 2))
    expect(first != nil && first === c.resolve((any Service).self, argument: Coordinates(x: 1, y: 2)), "the instance kept")
    repeatCount { sink(c.resolve((any Service).self, argument: Coordinates(x: 1, y: 2))) }
}

/// A `.multiton` hit with two `Int` arguments: its key is the array of their `AnyHashable`s.
@inline(never) func multitonHitWithTwoArguments() {
    let c = Container()
    c.register((any Service).self) { (_: any Resolver, _: Int, _: Int) in Plain() }.inObjectScope(.multiton)
    let first = c.resolve((any Service).self, arguments: 1, 2)
    expect(first != nil && first === c.resolve((any Service).self, arguments: 1, 2), "the instance kept")
    repeatCount { sink(c.resolve((any Service).self, arguments: 1, 2)) }
}

/// Row 25's baseline (not gated): an array of ten factories, mapped.
@inline(never) func baselineResolveAll() {
    let factories: [() -> any Service] = (0..<10).map { _ in { Plain() } }
    repeatCount { sink(factories.map { $0() }) }
}

switch arguments[1] {
case "transient":
    let c = Container()
    c.register((any Service).self) { _ in Plain() }.inObjectScope(.transient)
    repeatCount { sink(c.resolve((any Service).self)) }
case "container":
    let c = Container()
    c.register((any Service).self) { _ in Plain() }.inObjectScope(.container)
    repeatCount { sink(c.resolve((any Service).self)) }
case "counted-container":
    let c = Container()
    c.register((any Service).self) { _ in Plain() }.inObjectScope(.container)
    c.countsResolutions = true
    repeatCount { sink(c.resolve((any Service).self)) }
case "counted-typed":
    // The path DIActor takes: a synchronized view, a typed resolve, a container that counts.
    let c = Container()
    c.register((any Service).self) { _ in Plain() }.inObjectScope(.container)
    c.countsResolutions = true
    let r = c.synchronize()
    repeatCount { sink(try? r.resolveService((any Service).self, name: nil, arguments: (), argumentCount: 0)) }
case "graph":
    let c = Container()
    c.register((any Service).self) { _ in Plain() }
    repeatCount { sink(c.resolve((any Service).self)) }
case "named":
    let c = Container()
    for name in names.prefix(100) {
        c.register((any Service).self, name: name) { _ in Plain() }
    }
    repeatCount { sink(c.resolve((any Service).self, name: names[42])) }
case "argument":
    let c = Container()
    c.register((any Service).self) { (_: any Resolver, _: Int) in Plain() }
    repeatCount { sink(c.resolve((any Service).self, argument: 7)) }
case "three-arguments":
    let c = Container()
    c.register((any Service).self) { (_: any Resolver, _: Int, _: String, _: Bool) in Plain() }
    repeatCount { sink(c.resolve((any Service).self, arguments: 7, "x", true)) }
case "child":
    let parent = Container()
    parent.register((any Service).self) { _ in Plain() }
    let c = Container(parent: parent)
    repeatCount { sink(c.resolve((any Service).self)) }
case "great-grandchild":
    let root = Container()
    root.register((any Service).self) { _ in Plain() }
    let c = Container(parent: Container(parent: Container(parent: root)))
    repeatCount { sink(c.resolve((any Service).self)) }
case "chain":
    let c = Container()
    for index in 0..<10 {
        c.register((any Service).self, name: "\(index)") { r in
            Node(next: index < 9 ? r.resolve((any Service).self, name: "\(index + 1)") : nil)
        }
        .inObjectScope(.transient)
    }
    repeatCount { sink(c.resolve((any Service).self, name: "0")) }
case "counted-chain", "validated-chain":
    observedChain(counting: arguments[1] == "counted-chain")
case "fan-out":
    let c = Container()
    c.register(Plain.self) { _ in Plain() }
    c.register((any Service).self) { r in Fan(parts: (0..<5).map { _ in r.resolve(Plain.self)! }) }
    repeatCount { sink(c.resolve((any Service).self)) }
case "failed":
    let c = Container()
    for name in names.prefix(100) {
        c.register((any Service).self, name: name) { _ in Plain() }
    }
    repeatCount { sink(c.resolve(Plain.self)) }
case "synchronized-container":
    let c = Container()
    c.register((any Service).self) { _ in Plain() }.inObjectScope(.container)
    let r = c.synchronize()
    repeatCount { sink(r.resolve((any Service).self)) }
case "synchronized-transient":
    let c = Container()
    c.register((any Service).self) { _ in Plain() }.inObjectScope(.transient)
    let r = c.synchronize()
    repeatCount { sink(r.resolve((any Service).self)) }
case "register":
    let c = Container()
    for index in 0..<count {
        c.register((any Service).self, name: names[index]) { _ in Plain() }
    }
    sink(c)
case "dictionary-register":
    // Not gated: the memory report's baseline (see README), a dictionary entry and its closure per
    // registration, keyed by service type and name.
    var table: [DictionaryKey: DictionaryEntry] = [:]
    for index in 0..<count {
        table[DictionaryKey(type: ObjectIdentifier((any Service).self), name: names[index])] = DictionaryEntry { Plain() }
    }
    sink(table)
case "app-launch":
    // One launch per operation, the same code as row 00 of the wall-clock benchmarks: the app's 10
    // assemblies into a new container, then its root's graph of 149 objects.
    for _ in 0..<count {
        let assembler = Assembler(KeystoneSuite.appAssemblies())
        sink(assembler.resolver.resolve(AppRoot.self))
    }
case "lean-launch":
    // Not gated: the app launch on the leanest hand-written container (no object per registration), the
    // reference `app-launch` is compared with in the README.
    for _ in 0..<count {
        sink(LeanSuite.launchApp().resolve(AppRoot.self))
    }
case "startup":
    repeatCount {
        let c = Container()
        for name in names.prefix(20) {
            c.register((any Service).self, name: name) { _ in Plain() }
        }
        for name in names.prefix(20) {
            sink(c.resolve((any Service).self, name: name))
        }
    }
case "resolve-all":
    let c = Container()
    for name in names.prefix(10) {
        c.register((any Service).self, name: name) { _ in Plain() }.inObjectScope(.transient)
    }
    expect(c.resolveAll((any Service).self).count == 10, "ten services")
    repeatCount { sink(c.resolveAll((any Service).self)) }
case "baseline-resolve-all":
    baselineResolveAll()
case "multiton-hit-struct":
    multitonHitWithStruct()
case "multiton-hit-two-arguments":
    multitonHitWithTwoArguments()
case "multiton-hit":
    let c = Container()
    c.register((any Service).self) { (_: any Resolver, _: Int) in Plain() }.inObjectScope(.multiton)
    let first = c.resolve((any Service).self, argument: 7)
    expect(first != nil && first === c.resolve((any Service).self, argument: 7), "the instance kept for 7")
    repeatCount { sink(c.resolve((any Service).self, argument: 7)) }
case "request-scope":
    // One operation is one request: a child of the app container (20 `.container` registrations), with 3
    // registrations of the request's own (one `.container` with a disposal handler), 5 resolves (3 of the
    // request's, 2 of the app's), then `dispose()`.
    let app = Container()
    for name in names.prefix(20) {
        app.register((any Service).self, name: name) { _ in Plain() }.inObjectScope(.container)
    }
    func handle() -> Int {
        let request = Container(parent: app)
        request.register(Plain.self) { _ in Plain() }
            .inObjectScope(.container)
            .onDispose { sink($0) }
        request.register(Node.self) { r in Node(next: r.resolve(Plain.self)) }
        request.register((any Service).self, name: "request") { r in
            Node(next: r.resolve((any Service).self, name: names[0]))
        }
        var made = 0
        if let node = request.resolve(Node.self) { sink(node); made += 1 }
        if let service = request.resolve((any Service).self, name: "request") { sink(service); made += 1 }
        if let plain = request.resolve(Plain.self) { sink(plain); made += 1 }
        if let service = request.resolve((any Service).self, name: names[1]) { sink(service); made += 1 }
        if let service = request.resolve((any Service).self, name: names[2]) { sink(service); made += 1 }
        try? request.dispose()
        return made
    }
    expect(handle() == 5, "five request resolves")
    repeatCount { sink(handle()) }
case "async-first-hundred":
    runTask { [count] in await asyncFirstHundred(count) }
case "baseline-first-hundred":
    runTask { [count] in await baselineFirstHundred(count) }
case "async-cached":
    runTask { [count] in await asyncCached(count) }
case "async-transient":
    runTask { [count] in await asyncTransient(count) }
case "server-scope":
    runTask { [count] in await serverScope(count) }
case "actor-resolve":
    runTask { [count] in await actorResolve(count) }
case "inject":
    injectProperty()
default:
    if !runBaseline(arguments[1], count: count) {
        fatalError("unknown scenario \(arguments[1])")
    }
}

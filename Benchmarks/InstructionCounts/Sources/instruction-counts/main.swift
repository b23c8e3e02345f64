// Runs one scenario `count` times: `instruction-counts SCENARIO COUNT`. gate.sh counts the instructions of two
// runs (1,000 and 2,000 operations) and divides the difference by 1,000, so that start-up and set-up cancel out.

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
case "inject":
    DependencyRegistry.register { Shared() }
    repeatCount { sink(Screen()) }
default:
    fatalError("unknown scenario \(arguments[1])")
}

import Benchmark
import Dispatch

// The contract every measured implementation fulfils, and the types the scenarios resolve.
//
// Each scenario exists three times: in `KeystoneSuite`, in `SwinjectSuite` (the same code, line for
// line, against the other library) and in `BaselineSuite` (hand-written dictionaries, the floor a
// container cannot beat). `KeystoneBenchmarks.swift` turns every scenario of every suite into one
// benchmark named "<scenario> / <suite>". The app launch also runs in `DirectSuite`, which has no
// container at all.

/// The measured loop of one benchmark, prepared by a suite: it captures a ready container and performs
/// the scenario's operation once per `benchmark.scaledIterations` iteration.
typealias MeasuredLoop = (Benchmark) -> Void

/// One implementation of every scenario.
///
/// A scenario method builds its containers (outside the measurement: it runs as the benchmark's setup),
/// resolves once to check the scenario works, and returns the loop to measure. The loop does ONE
/// operation per iteration, so a sample's figures divided by the scaling factor are per operation.
protocol Suite {
    /// The name after the slash in the benchmark names: "Keystone", "Swinject" or "Baseline".
    static var name: String { get }

    /// 00. An app's launch; one operation is the whole of it: the container built from 10 assemblies of
    /// 300 registrations in all (see AppLaunch/AppServices.swift), then ONE resolve of the root, whose
    /// graph is about 150 objects (`AppLaunch.census`), and the release of all of it.
    static func appLaunch() -> MeasuredLoop

    /// 01. A class with no dependencies, registered as a protocol, in `.transient` scope.
    static func resolveTransient() -> MeasuredLoop
    /// 02. The same in `.container` scope: the cached instance comes back.
    static func resolveContainer() -> MeasuredLoop
    /// 03. The same in the default `.graph` scope.
    static func resolveGraph() -> MeasuredLoop
    /// 04. One of 100 names registered for the same service type.
    static func resolveNamed() -> MeasuredLoop
    /// 05. A factory taking one runtime argument.
    static func resolveOneArgument() -> MeasuredLoop
    /// 06. A factory taking three runtime arguments.
    static func resolveThreeArguments() -> MeasuredLoop
    /// 07. From a child container whose parent holds the registration.
    static func resolveFromChild() -> MeasuredLoop
    /// 08. From a great-grandchild: the registration is three levels up.
    static func resolveFromGreatGrandchild() -> MeasuredLoop
    /// 09. `Chain0`, which needs `Chain1`, ... down to `Chain9`: ten transient instances per resolve.
    static func resolveChain() -> MeasuredLoop
    /// 10. `FanRoot`, which needs five `.graph` branches that share one `.graph` leaf: seven instances.
    static func resolveFanOut() -> MeasuredLoop
    /// 11. A type that is not registered, with 100 registrations present: the resolve returns `nil`.
    static func resolveUnregistered() -> MeasuredLoop
    /// 12. `.container` scope through the synchronized view, from one thread.
    static func synchronizedContainer() -> MeasuredLoop
    /// 13. `.transient` scope through the synchronized view, from one thread.
    static func synchronizedTransient() -> MeasuredLoop
    /// 14. `.container` scope through the synchronized view, from two threads at once.
    static func synchronizedContainerTwoThreads() -> MeasuredLoop
    /// 15. `.transient` scope through the synchronized view, from two threads at once.
    static func synchronizedTransientTwoThreads() -> MeasuredLoop
    /// 16. Registering under 1,000 distinct names in a new container; one operation is ONE registration.
    static func registerThousand() -> MeasuredLoop
    /// 17. A new container, 20 registrations and 20 resolves; one operation is the whole sequence.
    static func startup() -> MeasuredLoop
    /// 20. 01 in a container that also holds 10,000 registrations of other service types.
    static func resolveTransientAmongMany() -> MeasuredLoop
    /// 21. 02 in a container that also holds 10,000 registrations of other service types.
    static func resolveContainerAmongMany() -> MeasuredLoop
}

typealias AsyncMeasuredLoop = (Benchmark) async -> Void

/// The scenarios of Keystone's fronts, which Swinject does not have: each suite does the same job with
/// its closest code. `@Inject` is a property initialized with a shared instance, so Swinject and the
/// baseline initialize a property from a synchronized `.container` resolve; `DIActor.resolve` is a
/// resolve through an actor, so they resolve through an actor that holds their resolver.
protocol FrontSuite {
    static var name: String { get }

    /// Creates an object whose property is injected with a shared (`.global`) service.
    static func injectProperty() -> MeasuredLoop
    /// Resolves a shared instance through an actor, from a task.
    static func actorResolve() async -> AsyncMeasuredLoop
}

/// A service that may cross actor boundaries.
final class SendableService: Sendable {}

// MARK: - Services

/// The service most scenarios resolve, registered as this protocol.
protocol Service: AnyObject {}

/// A service with no dependencies.
final class PlainService: Service {}

/// A service made from runtime arguments.
final class ArgumentService: Service {
    let id: Int
    let label: String
    let weight: Double

    init(id: Int, label: String = "", weight: Double = 0) {
        self.id = id
        self.label = label
        self.weight = weight
    }
}

/// Never registered: what the failed-resolve scenario asks for.
protocol UnregisteredService: AnyObject {}

// The transient chain: each link holds the next one, `Chain9` holds nothing.
final class Chain9 {}
final class Chain8 { let next: Chain9; init(_ next: Chain9) { self.next = next } }
final class Chain7 { let next: Chain8; init(_ next: Chain8) { self.next = next } }
final class Chain6 { let next: Chain7; init(_ next: Chain7) { self.next = next } }
final class Chain5 { let next: Chain6; init(_ next: Chain6) { self.next = next } }
final class Chain4 { let next: Chain5; init(_ next: Chain5) { self.next = next } }
final class Chain3 { let next: Chain4; init(_ next: Chain4) { self.next = next } }
final class Chain2 { let next: Chain3; init(_ next: Chain3) { self.next = next } }
final class Chain1 { let next: Chain2; init(_ next: Chain2) { self.next = next } }
final class Chain0 { let next: Chain1; init(_ next: Chain1) { self.next = next } }

// The `.graph` fan-out: a root with five branches, all five holding the same leaf.
final class FanLeaf {}
final class FanBranch1 { let leaf: FanLeaf; init(_ leaf: FanLeaf) { self.leaf = leaf } }
final class FanBranch2 { let leaf: FanLeaf; init(_ leaf: FanLeaf) { self.leaf = leaf } }
final class FanBranch3 { let leaf: FanLeaf; init(_ leaf: FanLeaf) { self.leaf = leaf } }
final class FanBranch4 { let leaf: FanLeaf; init(_ leaf: FanLeaf) { self.leaf = leaf } }
final class FanBranch5 { let leaf: FanLeaf; init(_ leaf: FanLeaf) { self.leaf = leaf } }
final class FanRoot {
    let branches: (FanBranch1, FanBranch2, FanBranch3, FanBranch4, FanBranch5)

    init(_ b1: FanBranch1, _ b2: FanBranch2, _ b3: FanBranch3, _ b4: FanBranch4, _ b5: FanBranch5) {
        branches = (b1, b2, b3, b4, b5)
    }

    /// Whether every branch holds the same leaf, as the `.graph` scope promises.
    var sharesLeaf: Bool {
        let leaf = branches.0.leaf
        return branches.1.leaf === leaf && branches.2.leaf === leaf && branches.3.leaf === leaf
            && branches.4.leaf === leaf
    }
}

// MARK: - Many service types

/// How many registrations of other service types the growth scenarios (20 and 21) make besides the one
/// they resolve.
let otherServiceTypeCount = 10_000

/// One class per `Tag`: the growth scenarios register `Filler<Tag>` for 10,000 different tags, so that
/// every registration has a service type of its own without 10,000 declarations.
final class Filler<Tag> {}

/// The tags are binary numbers spelled as types, the highest digit outermost: `Bit1<Bit0<NoBits>>` is 0b10.
/// 14 nested digits give 16,384 distinct types.
enum NoBits {}
enum Bit0<Higher> {}
enum Bit1<Higher> {}

/// What each suite does with every filler type: registers it, or resolves it to check.
protocol FillerVisitor {
    mutating func visit<Tag>(_ type: Filler<Tag>.Type)
}

/// Calls `visitor` with `count` distinct filler types, the same ones on every call.
func visitFillerTypes(count: Int, _ visitor: inout some FillerVisitor) {
    let digits = 14
    precondition(count <= 1 << digits, "at most \(1 << digits) filler types")
    for number in 0..<count {
        visitFillerType(number: number, digits: digits, tag: NoBits.self, &visitor)
    }
}

/// Adds `number`'s lowest digit to `tag` and recurses over the other digits. The type grows at each level,
/// so it is built at run time, by the generic metadata the runtime instantiates.
private func visitFillerType<Tag>(number: Int, digits: Int, tag: Tag.Type, _ visitor: inout some FillerVisitor) {
    if digits == 0 {
        visitor.visit(Filler<Tag>.self)
    } else if number & 1 == 0 {
        visitFillerType(number: number >> 1, digits: digits - 1, tag: Bit0<Tag>.self, &visitor)
    } else {
        visitFillerType(number: number >> 1, digits: digits - 1, tag: Bit1<Tag>.self, &visitor)
    }
}

// MARK: - The app launch

/// Every class of the app-launch scenario (generated in AppLaunch/AppServices.swift): it lists the
/// objects it holds, so that a setup can count what a launch made.
protocol AppObject: AnyObject {
    var dependencies: [any AppObject] { get }
}

/// What a launch made: the distinct objects reachable from the root, and the references they hold. Two
/// launches that share (or fail to share) different instances differ in the first count.
struct AppCensus: Equatable, CustomStringConvertible {
    var objects: Int
    var references: Int

    /// Counts the object graph under `root`.
    init(of root: any AppObject) {
        var seen: Set<ObjectIdentifier> = []
        var pending: [any AppObject] = [root]
        objects = 0
        references = 0
        while let object = pending.popLast() {
            guard seen.insert(ObjectIdentifier(object)).inserted else { continue }
            let held = object.dependencies
            objects += 1
            references += held.count
            pending += held
        }
    }

    init(objects: Int, references: Int) {
        self.objects = objects
        self.references = references
    }

    var description: String {
        "\(objects) objects holding \(references) references"
    }
}

/// Checks one launch made by `launch`: the root's graph is the one the generator counted, and all of it is
/// released once the launch's last reference (its container's, in most suites) is gone.
func checkAppLaunch(_ suite: String, _ launch: () -> AppRoot?) {
    weak var released: AppRoot?
    do {
        let root = launch()
        let census = root.map(AppCensus.init(of:))
        let made = census.map(String.init(describing:)) ?? "no root"
        check(census == AppLaunch.census, "\(suite)'s launch made \(made), expected \(AppLaunch.census)")
        released = root
    }
    check(released == nil, "\(suite)'s launch released with its container")
}

// MARK: - Helpers

/// The registration names: "service-0" ... "service-999". All are at most 15 UTF-8 bytes, so they are
/// stored inline in `String` and passing one never allocates.
let serviceNames: [String] = (0..<1_000).map { "service-\($0)" }

/// The name the named scenario resolves, one of the first 100.
let resolvedName = "service-42"

/// Stops the benchmark run at setup when a scenario does not resolve what it should, so a broken
/// registration never shows up as a fast benchmark.
func check(_ condition: Bool, _ what: @autoclosure () -> String) {
    precondition(condition, "benchmark setup failed: \(what())")
}

/// A value handed to the threads of `onTwoThreads` that is made to be shared but whose type does not say
/// `Sendable`: Swinject's `synchronize()` returns a plain `Resolver`, and the baseline's container is shared
/// only through its locking methods.
struct Shared<Value>: @unchecked Sendable {
    let value: Value
}

/// Runs `body` on two threads at once, each with half of `benchmark.scaledIterations`, and returns when
/// both are done. The calling thread takes one half and a Dispatch worker thread the other, so the only
/// cost besides the work is waking one parked worker per sample.
func onTwoThreads(_ benchmark: Benchmark, _ body: @Sendable (Range<Int>) -> Void) {
    let iterations = benchmark.scaledIterations
    let middle = iterations.lowerBound + iterations.count / 2
    DispatchQueue.concurrentPerform(iterations: 2) { half in
        body(half == 0 ? iterations.lowerBound..<middle : middle..<iterations.upperBound)
    }
}

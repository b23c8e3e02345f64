import Foundation
import Testing

@testable import Keystone

// Attacks on `resolveAll`: the array filled in place by the engine (partial fills on failure, value
// types of every size, optionals, existentials), the slots walked up the parent chain, registrations
// changed by the factories it runs, and the resolver handed to factories (`ResolverReference`).

// MARK: - Fixtures

private protocol RAAPlugin: AnyObject {
    var name: String { get }
}

/// A plugin whose creation and end are counted per id.
private final class RAAInstance: RAAPlugin {
    let id: Int
    let name: String
    let made: Ends
    let ended: Ends
    var shared: RAAInstance?

    init(id: Int, name: String, made: Ends, ended: Ends) {
        self.id = id
        self.name = name
        self.made = made
        self.ended = ended
        made.add(id)
    }

    deinit {
        ended.add(id)
    }
}

/// Makes counted instances with fresh ids.
private final class RAAMint: @unchecked Sendable {
    // @unchecked: the counters lock themselves, and nothing else changes.
    let made = Ends()
    let ended = Ends()
    private let serial = Counter()

    func make(_ name: String) -> RAAInstance {
        RAAInstance(id: serial.next(), name: name, made: made, ended: ended)
    }

    /// Every instance made has ended, once.
    var allEndedOnce: Bool {
        made.total == ended.total && ended.twice.isEmpty && made.twice.isEmpty
    }
}

private struct RAAFailure: Error, Equatable {
    let index: Int
}

/// A value bigger than the eight words a type-erased resolve keeps inline, with references inside.
private struct RAALarge {
    var first: RAAInstance
    var words: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int)
    var text: String
    var last: RAAInstance
}

private struct RAAEmpty: Equatable {}

private enum RAAShape {
    case nothing
    case box(RAAInstance)
    case pair(String, Int)
}

private protocol RAAKeyed {
    associatedtype Key: Hashable
    var key: Key { get }
}

private final class RAAClassKeyed: RAAKeyed {
    let key: String
    init(key: String) { self.key = key }
}

private struct RAAStructKeyed: RAAKeyed {
    let key: Int
}

/// Records which resolver each factory received.
private final class RAAResolverLog: @unchecked Sendable {
    // @unchecked: `entries` is used only under `lock`.
    private let lock = NSLock()
    private var entries: [String] = []

    func record(_ place: String, _ resolver: any Resolver) {
        let description: String
        if let container = resolver as? Container {
            description = "container \(ObjectIdentifier(container).hashValue)"
        } else if let view = resolver as? SynchronizedResolver {
            description = "view \(ObjectIdentifier(view).hashValue)"
        } else if let wrapper = resolver as? RAAWrapper {
            description = "wrapper \(ObjectIdentifier(wrapper).hashValue)"
        } else {
            description = "other \(type(of: resolver))"
        }
        lock.lock()
        entries.append("\(place): \(description)")
        lock.unlock()
    }

    func take() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        let taken = entries
        entries = []
        return taken
    }
}

private func describe(_ container: Container) -> String {
    "container \(ObjectIdentifier(container).hashValue)"
}

private func describe(_ view: SynchronizedResolver) -> String {
    "view \(ObjectIdentifier(view).hashValue)"
}

/// A resolver of the app's own that fronts a container, and says so through `_engine` unless made
/// `opaque`.
private final class RAAWrapper: Resolver {
    let container: Container
    let namesItsContainer: Bool

    init(_ container: Container, opaque: Bool = false) {
        self.container = container
        namesItsContainer = !opaque
    }

    func resolveService<Service, Arguments>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: Arguments,
        argumentCount: Int
    ) throws(DIError) -> Service {
        try container.resolveService(serviceType, name: name, arguments: arguments, argumentCount: argumentCount)
    }

    var _engine: Container? { namesItsContainer ? container : nil }
}

private func failedKeyName(_ error: DIError) -> String? {
    switch error {
    case .factoryFailed(let key, _, _), .notRegistered(let key, _, _):
        return key.name
    default:
        return nil
    }
}

// MARK: - Partial fills and memory

@Suite("ResolveAllAttack memory", .tags(.engine), .hangLimit)
struct ResolveAllAttackMemoryTests {
    @Test(arguments: [0, 1, 3, 5])
    func aFailureMidwayReleasesEveryInstanceMadeBeforeIt(failing: Int) throws {
        let mint = RAAMint()
        do {
            let container = Container()
            for index in 0..<6 {
                container.register(RAAPlugin.self, name: "p\(index)") { _ in
                    if index == failing {
                        throw RAAFailure(index: index)
                    }
                    return mint.make("p\(index)")
                }
            }
            do {
                let all = try container.resolveAllThrows(RAAPlugin.self)
                Issue.record("expected p\(failing) to fail, got \(all.map(\.name))")
            } catch {
                #expect(failedKeyName(error) == "p\(failing)")
            }
            #expect(mint.made.total == failing, "the ones before the failure were made")
            #expect(mint.allEndedOnce, "every instance made before the failure is released once")

            let all = container.resolveAll(RAAPlugin.self)
            #expect(all.map(\.name) == (0..<6).filter { $0 != failing }.map { "p\($0)" })
            #expect(Set(all.map { ($0 as! RAAInstance).id }).count == 5)
            withExtendedLifetime(all) {
                #expect(mint.ended.total == failing, "what resolveAll returned is alive")
            }
        }
        #expect(mint.allEndedOnce)
        #expect(mint.made.total == failing + 5)
    }

    @Test(arguments: [0, 2, 4])
    func largeValuesWithReferencesAreReleasedOnceWhenOneFails(failing: Int) throws {
        let mint = RAAMint()
        do {
            let container = Container()
            for index in 0..<5 {
                container.register(RAALarge.self, name: "v\(index)") { _ in
                    if index == failing {
                        throw RAAFailure(index: index)
                    }
                    return RAALarge(
                        first: mint.make("first \(index)"),
                        words: (index, 1, 2, 3, 4, 5, 6, 7, 8, index * 100),
                        text: String(repeating: "t", count: 40 + index),
                        last: mint.make("last \(index)")
                    )
                }
            }
            #expect(throws: DIError.self) { try container.resolveAllThrows(RAALarge.self) }
            #expect(mint.made.total == 2 * failing)
            #expect(mint.allEndedOnce)

            let all = container.resolveAll(RAALarge.self)
            let expected = (0..<5).filter { $0 != failing }
            #expect(all.map(\.first.name) == expected.map { "first \($0)" })
            #expect(all.map(\.last.name) == expected.map { "last \($0)" })
            #expect(all.map(\.words.0) == expected)
            #expect(all.map(\.words.9) == expected.map { $0 * 100 })
            #expect(all.map(\.words.5) == Array(repeating: 5, count: 4))
            #expect(all.map(\.text.count) == expected.map { 40 + $0 })
            withExtendedLifetime(all) {
                #expect(mint.ended.total == 2 * failing)
            }
        }
        #expect(mint.allEndedOnce)
    }

    @Test func graphInstancesSharedByElementsAreReleasedWhenTheCallFails() throws {
        let mint = RAAMint()
        weak var sharedSeen: RAAInstance?
        do {
            let container = Container()
            container.register(RAAInstance.self) { _ in mint.make("shared") }.inObjectScope(.graph)
            for index in 0..<4 {
                container.register(RAAPlugin.self, name: "p\(index)") { r in
                    let shared = try r.resolveThrows(RAAInstance.self)
                    sharedSeen = shared
                    if index == 2 {
                        throw RAAFailure(index: index)
                    }
                    let made = mint.make("p\(index)")
                    made.shared = shared
                    return made
                }
            }
            #expect(throws: DIError.self) { try container.resolveAllThrows(RAAPlugin.self) }
            #expect(sharedSeen == nil, "the graph's instance is not kept past the failed call")
            #expect(mint.allEndedOnce)

            let all = container.resolveAll(RAAPlugin.self).map { $0 as! RAAInstance }
            #expect(all.map(\.name) == ["p0", "p1", "p3"])
            #expect(all[0].shared != nil)
            #expect(all[0].shared === all[1].shared && all[1].shared === all[2].shared, "one graph")
        }
        #expect(mint.allEndedOnce)
    }

    @Test func aCycleFoundUnderOneElementReleasesEverythingResolveAllThrowsMade() throws {
        let mint = RAAMint()
        do {
            let container = Container()
            for index in 0..<4 {
                container.register(RAAPlugin.self, name: "p\(index)") { r in
                    if index == 2 {
                        // Tolerates the nil of the cycle: only the call as a whole can fail.
                        _ = r.resolve(RAAPlugin.self, name: "p2")
                    }
                    return mint.make("p\(index)")
                }
            }
            do {
                let all = try container.resolveAllThrows(RAAPlugin.self)
                Issue.record("expected a cycle, got \(all.map(\.name))")
            } catch {
                guard case .circularDependency(let path) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(path.first?.name == "p2")
            }
            #expect(mint.allEndedOnce)
            let all = container.resolveAll(RAAPlugin.self)
            // Whatever it keeps, nothing is released twice or leaked.
            #expect(all.count <= 4)
            #expect(Set(all.map(\.name)).count == all.count)
        }
        #expect(mint.allEndedOnce)
    }

    @Test func resolveAllAfterACycleKeepsTheInstancesItReturns() throws {
        let mint = RAAMint()
        let container = Container()
        for index in 0..<3 {
            container.register(RAAPlugin.self, name: "p\(index)") { r in
                if index == 1 {
                    _ = r.resolve(RAAPlugin.self, name: "p1")
                }
                return mint.make("p\(index)")
            }
        }
        let all = container.resolveAll(RAAPlugin.self)
        // The documented rule: a cycle anywhere in a top-level call fails that call; the ones that
        // resolved are handed out (or nothing is), never a half-made instance.
        #expect(all.isEmpty || all.map(\.name) == ["p0", "p1", "p2"] || all.map(\.name) == ["p0", "p2"])
        #expect(mint.ended.total == mint.made.total - all.count)
    }

    @Test func containerScopedElementsSurviveTheFailureAndAreNotMadeTwice() throws {
        let mint = RAAMint()
        do {
            let container = Container()
            container.register(RAAPlugin.self, name: "kept") { _ in mint.make("kept") }.inObjectScope(.container)
            container.register(RAAPlugin.self, name: "failing") { _ in throw RAAFailure(index: 1) }
            container.register(RAAPlugin.self, name: "later") { _ in mint.make("later") }.inObjectScope(.container)
            #expect(throws: DIError.self) { try container.resolveAllThrows(RAAPlugin.self) }
            #expect(mint.made.total == 1)
            #expect(mint.ended.total == 0, "the container keeps its instance")
            let all = container.resolveAll(RAAPlugin.self)
            #expect(all.map(\.name) == ["kept", "later"])
            #expect(mint.made.total == 2, "kept was reused")
            #expect(all[0] === container.resolve(RAAPlugin.self, name: "kept"))
        }
        #expect(mint.allEndedOnce)
        #expect(mint.made.total == 2)
    }
}

// MARK: - Shapes of the service type

@Suite("ResolveAllAttack value shapes", .tags(.engine), .hangLimit)
struct ResolveAllAttackValueShapeTests {
    @Test func zeroSizedValues() throws {
        let container = Container()
        #expect(container.resolveAll(RAAEmpty.self).isEmpty)
        container.register(RAAEmpty.self) { _ in RAAEmpty() }
        #expect(container.resolveAll(RAAEmpty.self) == [RAAEmpty()])
        container.register(RAAEmpty.self, name: "b") { _ in RAAEmpty() }
        container.register(RAAEmpty.self, name: "c") { _ in throw RAAFailure(index: 2) }
        container.register(RAAEmpty.self, name: "d") { _ in RAAEmpty() }
        #expect(container.resolveAll(RAAEmpty.self).count == 3)
        #expect(container.synchronize().resolveAll(RAAEmpty.self).count == 3)
        #expect(throws: DIError.self) { try container.resolveAllThrows(RAAEmpty.self) }
        container.register(Void.self, name: "v") { _ in () }
        #expect(container.resolveAll(Void.self).count == 1)
    }

    @Test func optionalServiceTypes() throws {
        let mint = RAAMint()
        do {
            let container = Container()
            container.register(Int?.self, name: "none") { _ in nil }
            container.register(Int?.self, name: "one") { _ in 1 }
            container.register(Int.self, name: "not optional") { _ in 2 }
            #expect(container.resolveAll(Int?.self) == [nil, 1])
            #expect(try container.synchronize().resolveAllThrows(Int?.self) == [nil, 1])
            #expect(container.resolveAll(Int.self) == [2])

            container.register(RAAInstance?.self, name: "none") { _ in nil }
            container.register(RAAInstance?.self, name: "some") { _ in mint.make("some") }
            container.register(RAAInstance?.self, name: "failing") { _ in throw RAAFailure(index: 0) }
            let all = container.resolveAll(RAAInstance?.self)
            #expect(all.count == 2)
            #expect(all.first.map { $0 == nil } == true)
            #expect(all.last??.name == "some")
            #expect(throws: DIError.self) { try container.resolveAllThrows(RAAInstance?.self) }
        }
        #expect(mint.allEndedOnce)
    }

    @Test func enumsWithPayloadsAndExistentials() throws {
        let mint = RAAMint()
        do {
            let container = Container()
            container.register(RAAShape.self, name: "nothing") { _ in .nothing }
            container.register(RAAShape.self, name: "box") { _ in .box(mint.make("boxed")) }
            container.register(RAAShape.self, name: "pair") { _ in .pair(String(repeating: "p", count: 30), 7) }
            let shapes = container.resolveAll(RAAShape.self)
            #expect(shapes.count == 3)
            if case .nothing = shapes[0] {} else { Issue.record("expected .nothing, got \(shapes[0])") }
            if case .box(let boxed) = shapes[1] {
                #expect(boxed.name == "boxed")
            } else {
                Issue.record("expected .box, got \(shapes[1])")
            }
            if case .pair(let text, let number) = shapes[2] {
                #expect(text.count == 30 && number == 7)
            } else {
                Issue.record("expected .pair, got \(shapes[2])")
            }

            container.register((any RAAKeyed).self, name: "class") { _ in RAAClassKeyed(key: "c") }
                .inObjectScope(.container)
            container.register((any RAAKeyed).self, name: "struct") { _ in RAAStructKeyed(key: 42) }
                .inObjectScope(.container)
            container.register((any RAAKeyed).self, name: "graph class") { _ in RAAClassKeyed(key: "g") }
            let keyed = container.resolveAll((any RAAKeyed).self)
            #expect(keyed.map { String(describing: $0.key) } == ["c", "42", "g"])
            let again = try container.synchronize().resolveAllThrows((any RAAKeyed).self)
            #expect((keyed[0] as? RAAClassKeyed) === (again[0] as? RAAClassKeyed), "container scope")
            #expect((keyed[2] as? RAAClassKeyed) !== (again[2] as? RAAClassKeyed), "graph scope, two calls")

            container.register(AnyObject.self, name: "object") { _ in mint.make("object") }
            container.register(Any.self, name: "number") { _ in 3 }
            container.register(Any.self, name: "object") { _ in mint.make("any object") }
            #expect(container.resolveAll(AnyObject.self).map { ($0 as? RAAInstance)?.name } == ["object"])
            let anything = container.resolveAll(Any.self)
            #expect(anything.count == 2)
            #expect(anything.first as? Int == 3)
            #expect((anything.last as? RAAInstance)?.name == "any object")
        }
        #expect(mint.allEndedOnce)
    }
}

// MARK: - Hierarchies and scopes

@Suite("ResolveAllAttack hierarchies", .tags(.engine), .hangLimit)
struct ResolveAllAttackHierarchyTests {
    @Test func fourLevelsWithOverridesForwardsArgumentsAndAnEmptyLevel() throws {
        let root = Container()
        root.register(RAAPlugin.self) { _ in RAAMint().make("0 nil") }
        root.register(RAAPlugin.self, name: "a") { _ in RAAMint().make("0 a") }
        root.register(RAAPlugin.self, name: "b") { _ in RAAMint().make("0 b") }
        root.register(RAAPlugin.self, name: "arg") { (_, number: Int) in RAAMint().make("0 arg \(number)") }
        let first = Container(parent: root)
        first.register(RAAPlugin.self, name: "b") { _ in RAAMint().make("1 b") }
        first.register(RAAPlugin.self, name: "c") { _ in RAAMint().make("1 c") }
        first.register(RAAInstance.self) { _ in RAAMint().make("1 forwarded") }
            .inObjectScope(.container)
            .implements(RAAPlugin.self, name: "fw")
        let second = Container(parent: first)
        second.register(Int.self) { _ in 0 }
        let third = Container(parent: second)
        third.register(RAAPlugin.self, name: "a") { _ in RAAMint().make("3 a") }
        third.register(RAAPlugin.self) { _ in RAAMint().make("3 nil") }
        third.register(RAAPlugin.self, name: "d") { _ in RAAMint().make("3 d") }
        third.register(RAAPlugin.self, name: "c") { (_, number: Int) in RAAMint().make("3 c \(number)") }

        #expect(root.resolveAll(RAAPlugin.self).map(\.name) == ["0 nil", "0 a", "0 b"])
        let middle = ["0 nil", "0 a", "1 b", "1 c", "1 forwarded"]
        #expect(first.resolveAll(RAAPlugin.self).map(\.name) == middle)
        #expect(second.resolveAll(RAAPlugin.self).map(\.name) == middle)
        #expect(try second.synchronize().resolveAllThrows(RAAPlugin.self).map(\.name) == middle)
        let leaf = ["3 nil", "3 a", "1 b", "1 c", "1 forwarded", "3 d"]
        #expect(third.resolveAll(RAAPlugin.self).map(\.name) == leaf)
        #expect(try third.synchronize().resolveAllThrows(RAAPlugin.self).map(\.name) == leaf)
        // The forwarded one is the first level's container instance, wherever it is resolved from.
        let forwarded = third.resolveAll(RAAPlugin.self)[4]
        #expect(forwarded === first.resolve(RAAInstance.self))
        #expect(forwarded === second.resolveAll(RAAPlugin.self)[4])
        // Only registrations with arguments: nothing.
        let onlyArguments = Container(parent: Container())
        onlyArguments.register(RAAPlugin.self, name: "x") { (_, number: Int) in RAAMint().make("x \(number)") }
        #expect(onlyArguments.resolveAll(RAAPlugin.self).isEmpty)
        #expect(try onlyArguments.resolveAllThrows(RAAPlugin.self).isEmpty)
        // One registration, in the root of a deep chain.
        let lone = Container()
        lone.register(RAAPlugin.self, name: "only") { _ in RAAMint().make("only") }
        let deep = Container(parent: Container(parent: Container(parent: lone)))
        #expect(deep.resolveAll(RAAPlugin.self).map(\.name) == ["only"])
    }

    @Test func aChildThatOverridesEveryNameKeepsTheParentsOrder() throws {
        let parent = Container()
        for name in ["c", "a", "b"] {
            parent.register(RAAPlugin.self, name: name) { _ in RAAMint().make("parent \(name)") }
        }
        let child = Container(parent: parent)
        for name in ["b", "c", "a"] {
            child.register(RAAPlugin.self, name: name) { _ in RAAMint().make("child \(name)") }
        }
        #expect(child.resolveAll(RAAPlugin.self).map(\.name) == ["child c", "child a", "child b"])
        let grandchild = Container(parent: child)
        grandchild.register(RAAPlugin.self, name: "a") { _ in RAAMint().make("grandchild a") }
        grandchild.register(RAAPlugin.self, name: "new") { _ in RAAMint().make("grandchild new") }
        #expect(
            grandchild.resolveAll(RAAPlugin.self).map(\.name) == [
                "child c", "grandchild a", "child b", "grandchild new",
            ]
        )
    }

    @Test func aGraphElementIsTheInstanceALaterElementResolves() throws {
        let mint = RAAMint()
        let container = Container()
        container.register(RAAPlugin.self, name: "graph") { _ in mint.make("graph") }.inObjectScope(.graph)
        container.register(RAAPlugin.self, name: "probe") { r in
            let probe = mint.make("probe")
            probe.shared = try r.resolveThrows(RAAPlugin.self, name: "graph") as? RAAInstance
            return probe
        }
        let all = container.resolveAll(RAAPlugin.self)
        #expect(all.map(\.name) == ["graph", "probe"])
        let probe = try #require(all[1] as? RAAInstance)
        #expect(probe.shared === all[0], "one graph for all the elements")
        #expect(mint.made.total == 2)
        // The other order shares the instance: the probe's nested resolve keeps it in the graph.
        let reversed = Container()
        reversed.register(RAAPlugin.self, name: "probe") { r in
            let probe = mint.make("probe")
            probe.shared = try r.resolveThrows(RAAPlugin.self, name: "graph") as? RAAInstance
            return probe
        }
        reversed.register(RAAPlugin.self, name: "graph") { _ in mint.make("graph") }.inObjectScope(.graph)
        let other = try reversed.synchronize().resolveAllThrows(RAAPlugin.self)
        #expect((other[0] as? RAAInstance)?.shared === other[1])
    }

    @Test func everyScopeInOneCall() throws {
        let mint = RAAMint()
        let container = Container()
        let custom = ObjectScope(storageFactory: PermanentStorage.init, description: "custom permanent")
        container.register(RAAPlugin.self, name: "transient") { _ in mint.make("transient") }
            .inObjectScope(.transient)
        container.register(RAAPlugin.self, name: "graph") { _ in mint.make("graph") }.inObjectScope(.graph)
        container.register(RAAPlugin.self, name: "container") { _ in mint.make("container") }
            .inObjectScope(.container)
        container.register(RAAPlugin.self, name: "weak") { _ in mint.make("weak") }.inObjectScope(.weak)
        container.register(RAAPlugin.self, name: "multiton") { _ in mint.make("multiton") }
            .inObjectScope(.multiton)
        container.register(RAAPlugin.self, name: "custom") { _ in mint.make("custom") }.inObjectScope(custom)
        // Resolves the graph one again, inside the same call: the same instance.
        container.register(RAAPlugin.self, name: "probe") { r in
            let probe = mint.make("probe")
            probe.shared = try r.resolveThrows(RAAPlugin.self, name: "graph") as? RAAInstance
            return probe
        }
        let names = ["transient", "graph", "container", "weak", "multiton", "custom", "probe"]
        weak var weakOne: RAAPlugin?
        var first: [RAAPlugin]? = container.resolveAll(RAAPlugin.self)
        let one = try #require(first)
        #expect(one.map(\.name) == names)
        weakOne = one[3]
        var second: [RAAPlugin]? = try container.synchronize().resolveAllThrows(RAAPlugin.self)
        let two = try #require(second)
        #expect(two.map(\.name) == names)
        #expect(one[0] !== two[0])
        #expect(one[1] !== two[1])
        #expect(one[2] === two[2])
        #expect(one[3] === two[3], "held by the first array")
        #expect(one[4] === two[4])
        #expect(one[5] === two[5])
        #expect(one[4] === container.resolve(RAAPlugin.self, name: "multiton"))
        let weakId = (two[3] as! RAAInstance).id
        _ = consume one
        _ = consume two
        first = nil
        #expect(weakOne != nil, "the second array still holds it")
        #expect(container.resolveAll(RAAPlugin.self)[3] === second?[3])
        second = nil
        #expect(first == nil && weakOne == nil)
        #expect(mint.ended.count(weakId) == 1)
        let fourth = container.resolveAll(RAAPlugin.self)
        #expect((fourth[3] as! RAAInstance).id != weakId)
        container.resetObjectScope(custom)
        container.resetObjectScope(.container)
        container.resetObjectScope(.multiton)
        let fifth = container.resolveAll(RAAPlugin.self)
        #expect(fifth[2] !== fourth[2] && fifth[4] !== fourth[4] && fifth[5] !== fourth[5])
    }

    @Test func theParentsContainerInstanceIsSharedWithEveryChildsResolveAll() throws {
        let mint = RAAMint()
        let parent = Container()
        parent.register(RAAPlugin.self, name: "shared") { _ in mint.make("shared") }.inObjectScope(.container)
        let children = (0..<3).map { index in
            let child = Container(parent: parent)
            child.register(RAAPlugin.self, name: "own") { _ in mint.make("own \(index)") }.inObjectScope(.container)
            return child
        }
        let lists = children.map { $0.resolveAll(RAAPlugin.self) }
        #expect(lists.map { $0.map(\.name) } == (0..<3).map { ["shared", "own \($0)"] })
        #expect(lists[0][0] === lists[1][0] && lists[1][0] === lists[2][0])
        #expect(lists[0][0] === parent.resolveAll(RAAPlugin.self).first)
        #expect(mint.made.total == 4)
    }
}

// MARK: - Registrations changed while resolveAll runs

@Suite("ResolveAllAttack changes during the call", .tags(.engine), .hangLimit)
struct ResolveAllAttackChangeTests {
    @Test func reRegisteringResolvedAndPendingElementsAndAddingANewName() throws {
        let mint = RAAMint()
        let container = Container()
        container.register(RAAPlugin.self, name: "p0") { _ in mint.make("old p0") }
        var changed = false
        container.register(RAAPlugin.self, name: "p1") { _ in
            if !changed {
                changed = true
                container.register(RAAPlugin.self, name: "p0") { _ in mint.make("new p0") }
                container.register(RAAPlugin.self, name: "p3") { _ in mint.make("new p3") }
                container.register(RAAPlugin.self, name: "p9") { _ in mint.make("p9") }
            }
            return mint.make("p1")
        }
        container.register(RAAPlugin.self, name: "p2") { _ in mint.make("p2") }
        container.register(RAAPlugin.self, name: "p3") { _ in mint.make("old p3") }
        let first = container.resolveAll(RAAPlugin.self).map(\.name)
        #expect(first == ["old p0", "p1", "p2", "new p3"])
        let second = container.resolveAll(RAAPlugin.self).map(\.name)
        #expect(Set(second) == ["new p0", "p1", "p2", "new p3", "p9"])
        #expect(second.last == "p9", "a new name comes last")
    }

    @Test func aPendingElementUnregisteredMidCallIsLeftOutOrReported() throws {
        let mint = RAAMint()
        do {
            let container = Container()
            var removes = true
            container.register(RAAPlugin.self, name: "p0") { [unowned container] _ in
                if removes {
                    container.unregister(ServiceKey(serviceType: RAAPlugin.self, name: "p2"))
                }
                return mint.make("p0")
            }
            container.register(RAAPlugin.self, name: "p1") { _ in mint.make("p1") }
            container.register(RAAPlugin.self, name: "p2") { _ in mint.make("p2") }
            container.register(RAAPlugin.self, name: "p3") { _ in mint.make("p3") }
            #expect(container.resolveAll(RAAPlugin.self).map(\.name) == ["p0", "p1", "p3"])
            container.register(RAAPlugin.self, name: "p2") { _ in mint.make("p2") }
            do {
                let all = try container.resolveAllThrows(RAAPlugin.self)
                Issue.record("expected the removed p2 to be reported, got \(all.map(\.name))")
            } catch {
                #expect(failedKeyName(error) == "p2")
            }
            removes = false
            #expect(container.resolveAll(RAAPlugin.self).map(\.name) == ["p0", "p1", "p3"])
        }
        #expect(mint.allEndedOnce)
    }

    @Test func anElementUnregisteredAfterItWasResolvedStaysInTheArrayAndIsDisposedOnce() throws {
        let mint = RAAMint()
        let disposed = Ends()
        do {
            let container = Container()
            container.register(RAAPlugin.self, name: "kept") { _ in mint.make("kept") }
                .inObjectScope(.container)
                .onDispose { disposed.add(($0 as! RAAInstance).id) }
            container.register(RAAPlugin.self, name: "remover") { [unowned container] _ in
                container.unregister(ServiceKey(serviceType: RAAPlugin.self, name: "kept"))
                return mint.make("remover")
            }
            let all = container.resolveAll(RAAPlugin.self)
            #expect(all.map(\.name) == ["kept", "remover"])
            let keptId = (all[0] as! RAAInstance).id
            #expect(disposed.count(keptId) == 1)
            withExtendedLifetime(all) {
                #expect(mint.ended.count(keptId) == 0, "the array holds it")
            }
            #expect(container.resolve(RAAPlugin.self, name: "kept") == nil)
        }
        #expect(mint.allEndedOnce)
        #expect(disposed.twice.isEmpty)
    }

    @Test func disposeInsideAFactoryDuringResolveAll() throws {
        let mint = RAAMint()
        let disposed = Ends()
        do {
            let container = Container()
            container.register(RAAPlugin.self, name: "early") { _ in mint.make("early") }
                .inObjectScope(.container)
                .onDispose { disposed.add(($0 as! RAAInstance).id) }
            var disposes = true
            var disposal: DIError?
            container.register(RAAPlugin.self, name: "disposer") { [unowned container] _ in
                if disposes {
                    do throws(DIError) {
                        try container.dispose()
                    } catch {
                        disposal = error
                    }
                }
                return mint.make("disposer")
            }
            container.register(RAAPlugin.self, name: "late") { _ in mint.make("late") }
                .inObjectScope(.container)
                .onDispose { disposed.add(($0 as! RAAInstance).id) }
            let before = try container.resolveThrows(RAAPlugin.self, name: "late")
            let beforeId = (before as! RAAInstance).id
            let all = container.resolveAll(RAAPlugin.self)
            #expect(all.map(\.name) == ["early", "disposer", "late"])
            if disposal == nil {
                let earlyId = (all[0] as! RAAInstance).id
                #expect(disposed.count(earlyId) == 1, "disposed, though the array holds it")
                #expect(disposed.count(beforeId) == 1)
                #expect(all[2] !== before, "late was made again after the disposal")
                #expect(all[0] !== container.resolve(RAAPlugin.self, name: "early"))
                #expect(all[2] === container.resolve(RAAPlugin.self, name: "late"))
            }
            disposes = false
            let next = container.resolveAll(RAAPlugin.self)
            #expect(next[2] === container.resolve(RAAPlugin.self, name: "late"))
        }
        #expect(mint.allEndedOnce)
        #expect(disposed.twice.isEmpty)
    }

    @Test func removeAllOfTheRootWhileAChildResolvesAll() throws {
        let root = Container()
        let child = Container(parent: root)
        var clears = true
        root.register(RAAPlugin.self, name: "clearer") { _ in
            if clears {
                root.removeAll()
            }
            return RAAMint().make("clearer")
        }
        root.register(RAAPlugin.self, name: "root only") { _ in RAAMint().make("root only") }
        root.register(RAAPlugin.self, name: "both") { _ in RAAMint().make("root both") }
        child.register(RAAPlugin.self, name: "both") { _ in RAAMint().make("child both") }
        child.register(RAAPlugin.self, name: "child only") { _ in RAAMint().make("child only") }
        #expect(child.resolveAll(RAAPlugin.self).map(\.name) == ["clearer", "child both", "child only"])
        #expect(child.resolveAll(RAAPlugin.self).map(\.name) == ["child both", "child only"])
        clears = false
        #expect(root.resolveAll(RAAPlugin.self).isEmpty)
    }

    @Test func aFactoryThatAddsAnArgumentRegistrationOfTheSameNameChangesNothingButThePath() throws {
        let container = Container()
        var adds = true
        container.register(RAAPlugin.self, name: "a") { _ in
            if adds {
                adds = false
                container.register(RAAPlugin.self, name: "b") { (_, number: Int) in RAAMint().make("b \(number)") }
            }
            return RAAMint().make("a")
        }
        container.register(RAAPlugin.self, name: "b") { _ in RAAMint().make("b") }
        container.register(RAAPlugin.self, name: "c") { _ in RAAMint().make("c") }
        #expect(container.resolveAll(RAAPlugin.self).map(\.name) == ["a", "b", "c"])
        #expect(container.resolveAll(RAAPlugin.self).map(\.name) == ["a", "b", "c"])
        #expect(container.resolve(RAAPlugin.self, name: "b", argument: 4)?.name == "b 4")
    }

    @Test func aFactoryResolvesAllOfAChildAndOfAnotherType() throws {
        let parent = Container()
        let child = Container(parent: parent)
        var nested: [[String]] = []
        parent.register(RAAPlugin.self, name: "p0") { _ in RAAMint().make("parent p0") }
        parent.register(RAAPlugin.self, name: "p1") { _ in
            nested.append(child.resolveAll(RAAPlugin.self).map(\.name))
            nested.append(child.resolveAll(RAAShape.self).map { "\($0)" })
            return RAAMint().make("parent p1")
        }
        parent.register(RAAPlugin.self, name: "p2") { _ in RAAMint().make("parent p2") }
        child.register(RAAPlugin.self, name: "p2") { _ in RAAMint().make("child p2") }
        child.register(RAAShape.self) { _ in .pair("x", 1) }
        child.register(RAAPlugin.self, name: "p1") { r in
            nested.append(r.resolveAll(RAAShape.self).map { "\($0)" })
            return RAAMint().make("child p1")
        }
        #expect(parent.resolveAll(RAAPlugin.self).map(\.name) == ["parent p0", "parent p1", "parent p2"])
        // The child's p1 appends first, from inside the nested call.
        #expect(nested == [[#"pair("x", 1)"#], ["parent p0", "child p1", "child p2"], [#"pair("x", 1)"#]])
        nested = []
        // The child's own p1 runs the nested resolveAll through the child; the outer call is the child's.
        #expect(
            try child.synchronize().resolveAllThrows(RAAPlugin.self).map(\.name) == [
                "parent p0", "child p1", "child p2",
            ]
        )
        #expect(nested == [[#"pair("x", 1)"#]])
    }

    @Test func aFactoryThatRecursesIntoResolveAllOfItsOwnTypeThroughTheView() throws {
        let mint = RAAMint()
        do {
            let container = Container()
            let view = container.synchronize()
            var inner: [String]?
            container.register(RAAPlugin.self, name: "a") { _ in mint.make("a") }
            container.register(RAAPlugin.self, name: "recursing") { [unowned view] _ in
                inner = view.resolveAll(RAAPlugin.self).map(\.name)
                return mint.make("recursing")
            }
            container.register(RAAPlugin.self, name: "c") { _ in mint.make("c") }
            do {
                let all = try view.resolveAllThrows(RAAPlugin.self)
                Issue.record("expected the recursion to be a cycle, got \(all.map(\.name))")
            } catch {
                guard case .circularDependency = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
            }
            #expect(inner.map { !$0.contains("recursing") } == true)
            #expect(container.resolve(RAAPlugin.self, name: "c")?.name == "c", "usable afterwards")
        }
        #expect(mint.allEndedOnce)
    }
}

// MARK: - The resolver handed to factories

@Suite("ResolveAllAttack resolver handed to factories", .tags(.engine), .hangLimit)
struct ResolveAllAttackResolverTests {
    /// Registers `a` (nested resolve of `b`), `b`, and `named` under a name, every one recording its resolver.
    private func makeContainer(_ log: RAAResolverLog, parent: Container? = nil) -> Container {
        let container = Container(parent: parent)
        container.register(RAAPlugin.self, name: "a") { r in
            log.record("a", r)
            let made = RAAMint().make("a")
            made.shared = try r.resolveThrows(RAAInstance.self)
            return made
        }
        container.register(RAAInstance.self) { r in
            log.record("b", r)
            return RAAMint().make("b")
        }
        container.register(RAAPlugin.self, name: "named") { r in
            log.record("named", r)
            return RAAMint().make("named")
        }
        .initCompleted { r, _ in log.record("named completed", r) }
        return container
    }

    @Test func fromTheContainer() throws {
        let log = RAAResolverLog()
        let container = makeContainer(log)
        let me = describe(container)
        _ = try container.resolveThrows(RAAPlugin.self, name: "a")
        #expect(log.take() == ["a: \(me)", "b: \(me)"])
        _ = container.resolve(RAAPlugin.self, name: "named")
        #expect(log.take() == ["named: \(me)", "named completed: \(me)"])
        _ = container.resolveAll(RAAPlugin.self)
        #expect(log.take() == ["a: \(me)", "b: \(me)", "named: \(me)", "named completed: \(me)"])
        _ = try container.resolveAllThrows(RAAPlugin.self)
        #expect(log.take() == ["a: \(me)", "b: \(me)", "named: \(me)", "named completed: \(me)"])
        let erased: any Resolver = container
        _ = erased.resolveAll(RAAPlugin.self)
        #expect(log.take() == ["a: \(me)", "b: \(me)", "named: \(me)", "named completed: \(me)"])
    }

    @Test func throughTheView() throws {
        let log = RAAResolverLog()
        let container = makeContainer(log)
        let view = container.synchronize()
        let me = describe(view)
        _ = try view.resolveThrows(RAAPlugin.self, name: "a")
        #expect(log.take() == ["a: \(me)", "b: \(me)"])
        _ = view.resolve(RAAPlugin.self, name: "named")
        #expect(log.take() == ["named: \(me)", "named completed: \(me)"])
        _ = view.resolveAll(RAAPlugin.self)
        #expect(log.take() == ["a: \(me)", "b: \(me)", "named: \(me)", "named completed: \(me)"])
        let erased: any Resolver = view
        _ = try erased.resolveAllThrows(RAAPlugin.self)
        #expect(log.take() == ["a: \(me)", "b: \(me)", "named: \(me)", "named completed: \(me)"])
        // Two views of one container: each hands itself.
        let other = container.synchronize()
        _ = other.resolveAll(RAAPlugin.self)
        #expect(
            log.take() == [
                "a: \(describe(other))", "b: \(describe(other))", "named: \(describe(other))",
                "named completed: \(describe(other))",
            ]
        )
        // Deferred resolves obtained through the view hand the view too.
        // Deferred resolves obtained through the view hand a view of the same container (one of their own).
        let lazy = try view.resolveThrows(Lazy<RAAInstance>.self)
        _ = lazy.instance
        let deferred = log.take()
        #expect(deferred.count == 1 && deferred.allSatisfy { $0.hasPrefix("b: view ") })
        let provider = try container.resolveThrows(Provider<RAAInstance>.self)
        _ = provider.instance
        #expect(log.take() == ["b: \(describe(container))"])
    }

    @Test func aChildHandsItselfForItsParentsRegistrations() throws {
        let log = RAAResolverLog()
        let parent = makeContainer(log)
        let child = Container(parent: parent)
        child.register(RAAPlugin.self, name: "own") { r in
            log.record("own", r)
            return RAAMint().make("own")
        }
        let me = describe(child)
        _ = child.resolveAll(RAAPlugin.self)
        #expect(log.take() == ["a: \(me)", "b: \(me)", "named: \(me)", "named completed: \(me)", "own: \(me)"])
        let view = child.synchronize()
        _ = try view.resolveAllThrows(RAAPlugin.self)
        let viewed = describe(view)
        #expect(
            log.take() == [
                "a: \(viewed)", "b: \(viewed)", "named: \(viewed)", "named completed: \(viewed)", "own: \(viewed)",
            ]
        )
    }

    @Test func theTypedPathAfterAChangeHandsTheSameResolver() throws {
        let log = RAAResolverLog()
        let container = makeContainer(log)
        var registers = true
        let serial = Counter()
        container.register(RAAPlugin.self, name: "changer") { r in
            log.record("changer", r)
            if registers {
                container.register(Int.self, name: "n\(serial.next())") { _ in 0 }
            }
            return RAAMint().make("changer")
        }
        container.register(RAAPlugin.self, name: "after") { r in
            log.record("after", r)
            return RAAMint().make("after")
        }
        let view = container.synchronize()
        for resolver in [describe(view), describe(container)] {
            if resolver == describe(view) {
                _ = view.resolveAll(RAAPlugin.self)
            } else {
                _ = container.resolveAll(RAAPlugin.self)
            }
            #expect(
                log.take() == [
                    "a: \(resolver)", "b: \(resolver)", "named: \(resolver)", "named completed: \(resolver)",
                    "changer: \(resolver)", "after: \(resolver)",
                ]
            )
        }
        #expect(serial.count == 2)
        registers = false
        // A forwarded element (the typed path) hands the resolver of the call too.
        container.register(RAAInstance.self, name: "fw") { r in
            log.record("fw", r)
            return RAAMint().make("fw")
        }
        .implements(RAAPlugin.self, name: "fw")
        _ = try view.resolveAllThrows(RAAPlugin.self)
        #expect(log.take().suffix(2) == ["after: \(describe(view))", "fw: \(describe(view))"])
    }

    @Test func aResolverOfTheAppsOwn() throws {
        let log = RAAResolverLog()
        let container = makeContainer(log)
        let wrapper = RAAWrapper(container)
        let all = wrapper.resolveAll(RAAPlugin.self)
        #expect(all.map(\.name) == ["a", "named"])
        let me = "wrapper \(ObjectIdentifier(wrapper).hashValue)"
        // The nested resolve goes through the wrapper's `resolveService`, which resolves from the container.
        #expect(log.take() == ["a: \(me)", "b: \(describe(container))", "named: \(me)", "named completed: \(me)"])
        #expect(try wrapper.resolveAllThrows(RAAPlugin.self).count == 2)
        _ = log.take()
        let opaque = RAAWrapper(container, opaque: true)
        #expect(opaque.resolveAll(RAAPlugin.self).isEmpty)
        #expect(try opaque.resolveAllThrows(RAAPlugin.self).isEmpty)
        #expect(opaque.resolve(RAAPlugin.self, name: "named")?.name == "named")
    }

    @Test func insideAnAsyncFactory() async throws {
        let container = Container()
        container.register(RAAPlugin.self, name: "graph") { _ in RAAMint().make("graph") }
        container.register(RAAPlugin.self, name: "other") { _ in RAAMint().make("other") }
        container.registerAsync(RAAShape.self) { r in
            let all = try r.resolveAllThrows(RAAPlugin.self)
            let graph = try await r.resolveAsync(RAAPlugin.self, name: "graph")
            return .pair(all.map(\.name).joined(separator: ","), all.first === graph ? 1 : 0)
        }
        let shape = try await container.resolveAsync(RAAShape.self)
        guard case .pair(let names, let sameGraph) = shape else {
            Issue.record("unexpected \(shape)")
            return
        }
        #expect(names == "graph,other")
        // Like a synchronous `r.resolve` inside an async factory, `r.resolveAll` joins its graph: the
        // same instance as `resolveAsync`.
        #expect(sameGraph == 1, "resolveAll inside an async factory joins its graph")
    }
}

// MARK: - Threads and tasks

@Suite("ResolveAllAttack concurrency", .tags(.engine, .concurrency), .hangLimit)
struct ResolveAllAttackConcurrencyTests {
    @Test func threadsResolveAllThroughViewsWhileOthersReRegisterAndResolve() throws {
        let mint = RAAMint()
        let parent = Container()
        let stableNames = (0..<4).map { "s\($0)" }
        for name in stableNames {
            parent.register(RAAPlugin.self, name: name) { _ in mint.make(name) }.inObjectScope(.container)
        }
        let child = Container(parent: parent)
        child.register(RAAPlugin.self, name: "s1") { _ in mint.make("child s1") }.inObjectScope(.container)
        child.register(RAAPlugin.self, name: "churn") { _ in mint.make("churn") }
        child.register(RAAPlugin.self, name: "failing") { _ in throw RAAFailure(index: 0) }
        let parentView = parent.synchronize()
        let childView = child.synchronize()
        let problems = EventLog()
        let expected = ["s0", "child s1", "s2", "s3", "churn"]
        let reference = childView.resolveAll(RAAPlugin.self)
        let keptIds = reference.prefix(4).map { ($0 as! RAAInstance).id }
        DispatchQueue.concurrentPerform(iterations: 6) { thread in
            for round in 0..<150 {
                switch thread {
                case 0:
                    childView.withContainer { container in
                        container.register(RAAPlugin.self, name: "churn") { _ in mint.make("churn") }
                    }
                case 1:
                    parentView.withContainer { container in
                        container.register(Int.self, name: "filler \(round)") { _ in round }
                    }
                    if round % 25 == 0 {
                        parentView.withContainer { container in
                            container.resetObjectScope(.graph)
                        }
                    }
                default:
                    let all = childView.resolveAll(RAAPlugin.self)
                    if all.map(\.name) != expected {
                        problems.record("order \(all.map(\.name))")
                    } else if all.prefix(4).map({ ($0 as! RAAInstance).id }) != keptIds {
                        problems.record("a container instance changed")
                    }
                    do throws(DIError) {
                        _ = try childView.resolveAllThrows(RAAPlugin.self)
                        problems.record("the failing registration did not fail")
                    } catch {
                        if failedKeyName(error) != "failing" {
                            problems.record("unexpected \(error)")
                        }
                    }
                    let parentAll = parentView.resolveAll(RAAPlugin.self)
                    if parentAll.map(\.name) != stableNames {
                        problems.record("parent order \(parentAll.map(\.name))")
                    }
                }
            }
        }
        #expect(problems.all.isEmpty)
        #expect(mint.made.twice.isEmpty)
        // The four container instances (one per name visible from each level) plus one churn per call.
        // Alive: the five container instances (four names in the parent, one in the child) and the churn
        // instance of `reference`.
        #expect(mint.made.total - mint.ended.total == 6)
        #expect(reference.count == 5)
    }

    @Test func tasksResolveAllThroughAViewWhileAFactoryStartsTasksOfItsOwn() async throws {
        let container = Container()
        let view = container.synchronize()
        let started = LockedTasks()
        let mint = RAAMint()
        for index in 0..<5 {
            container.register(RAAPlugin.self, name: "p\(index)") { _ in
                if index == 2 {
                    // A task that resolves all again once the lock is free: it must not deadlock nor see
                    // half a call.
                    started.appendIfRoom(limit: 40) {
                        Task.detached {
                            view.resolveAll(RAAPlugin.self).map(\.name)
                        }
                    }
                }
                return mint.make("p\(index)")
            }
            .inObjectScope(index == 4 ? .container : .graph)
        }
        let expected = (0..<5).map { "p\($0)" }
        try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<16 {
                group.addTask {
                    var names: [String] = []
                    for _ in 0..<20 {
                        names = try view.resolveAllThrows(RAAPlugin.self).map(\.name)
                        if names != expected {
                            return names
                        }
                    }
                    return names
                }
            }
            for try await names in group {
                #expect(names == expected)
            }
        }
        let tasks = started.all
        #expect(tasks.count == 40)
        var seen = 0
        for task in tasks {
            let names = await task.value
            seen += names == expected ? 1 : 0
        }
        #expect(seen == tasks.count)
    }

    @Test func threadsStartedByAFactoryResolveAllOnceTheCallEnds() throws {
        let container = Container()
        let view = container.synchronize()
        let group = DispatchGroup()
        let results = EventLog()
        let calls = Counter()
        container.register(RAAPlugin.self, name: "a") { _ in RAAMint().make("a") }
        container.register(RAAPlugin.self, name: "spawner") { _ in
            if calls.next() == 1 {
                for _ in 0..<4 {
                    DispatchQueue.global().async(group: group) {
                        results.record(view.resolveAll(RAAPlugin.self).map(\.name).joined(separator: ","))
                    }
                }
            }
            return RAAMint().make("spawner")
        }
        container.register(RAAPlugin.self, name: "c") { _ in RAAMint().make("c") }
        let all = view.resolveAll(RAAPlugin.self)
        group.wait()
        #expect(all.map(\.name) == ["a", "spawner", "c"])
        #expect(results.all.count == 4)
        #expect(results.all.allSatisfy { $0 == "a,spawner,c" })
    }
}

/// A list of tasks, appended from factories on any thread.
private final class LockedTasks: @unchecked Sendable {
    // @unchecked: `tasks` is used only under `lock`.
    private let lock = NSLock()
    private var tasks: [Task<[String], Never>] = []

    /// Starts a task with `start` and keeps it, unless `limit` tasks were kept already.
    func appendIfRoom(limit: Int, _ start: () -> Task<[String], Never>) {
        lock.lock()
        defer { lock.unlock() }
        if tasks.count < limit {
            tasks.append(start())
        }
    }

    var all: [Task<[String], Never>] {
        lock.lock()
        defer { lock.unlock() }
        return tasks
    }
}

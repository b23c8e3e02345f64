import Foundation
import Keystone
import Testing

// Attacks on the registration table whose free positions are left uninitialized (a position's hot slot and
// bucket are made when a service type claims it; growing moves the claimed ones and drops emptied ones).
// Everything goes through the public API: hundreds of service types grow the table from 16 positions
// several times, with names, arguments, forwarded types, replacement, `removeAll()`, deinitializers and
// factories that register into the container being changed, fronts that release types, and threads.

// MARK: - Fixtures

/// Counts the instances alive, under a lock: the threaded attack makes and drops them on several threads.
private final class TableAttackTally: @unchecked Sendable {
    // @unchecked: `value` is used only under `lock`.
    private let lock = NSLock()
    private var value = 0

    func add(_ delta: Int) {
        lock.lock()
        value += delta
        lock.unlock()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

/// The base class a tower is forwarded to with `implements`: one more distinct service type per level.
private class TableAttackFloor<Inner> {
    let family: Int
    let depth: Int
    let tag: Int
    let tally: TableAttackTally

    init(family: Int, depth: Int, tag: Int, tally: TableAttackTally) {
        self.family = family
        self.depth = depth
        self.tag = tag
        self.tally = tally
        tally.add(1)
    }

    deinit { tally.add(-1) }
}

/// A distinct service type per nesting level and base type: `Tower<Int>`, `Tower<Tower<Int>>`, …
private final class TableAttackTower<Inner>: TableAttackFloor<Inner> {}

/// A `Sendable` service type per nesting level, for the actor front.
private struct TableAttackMark<Inner>: Sendable {
    let depth: Int
    let tag: Int
}

/// Runs `action` when it is released.
private final class TableAttackTrigger {
    let action: () -> Void

    init(_ action: @escaping () -> Void) { self.action = action }

    deinit { action() }
}

/// Made by a factory that changes the container while a resolve is in progress.
private final class TableAttackBuilder {
    let tag: Int
    init(tag: Int) { self.tag = tag }
}

/// Made by an async factory that changes the container while it is suspended.
private final class TableAttackAsyncBuilder: Sendable {
    let tag: Int
    init(tag: Int) { self.tag = tag }
}

/// Registered once before the threads start, and resolved by every one of them.
private final class TableAttackAnchor {}

/// Registered again and again by one thread while the others resolve.
private final class TableAttackChurn {
    let round: Int
    init(round: Int) { self.round = round }
}

/// The number of levels in one family of towers (one base type).
private let levelsPerFamily = 100

/// The number of families, each on its own base type.
private let familyCount = 8

/// A heap-allocated name (longer than a small string), so that moving a hot slot moves a reference.
private func longName(_ depth: Int) -> String {
    "a-name-long-enough-to-live-on-the-heap-\(depth)"
}

// MARK: - Walking the types

/// Something done to each tower type of a walk.
private protocol TowerVisitor {
    mutating func visit<Inner>(_ type: TableAttackTower<Inner>.Type, family: Int, depth: Int)
}

/// Visits `Tower<Inner>` and the `count - depth - 1` levels above it.
private func visitTowers<Inner, Visitor: TowerVisitor>(
    over _: Inner.Type,
    family: Int,
    from depth: Int,
    count: Int,
    _ visitor: inout Visitor
) {
    guard depth < count else { return }
    visitor.visit(TableAttackTower<Inner>.self, family: family, depth: depth)
    visitTowers(over: TableAttackTower<Inner>.self, family: family, from: depth + 1, count: count, &visitor)
}

/// Visits the first `count` levels of family `family`.
private func visitFamily<Visitor: TowerVisitor>(_ family: Int, count: Int, _ visitor: inout Visitor) {
    switch family {
    case 0: visitTowers(over: Int.self, family: family, from: 0, count: count, &visitor)
    case 1: visitTowers(over: String.self, family: family, from: 0, count: count, &visitor)
    case 2: visitTowers(over: Double.self, family: family, from: 0, count: count, &visitor)
    case 3: visitTowers(over: Bool.self, family: family, from: 0, count: count, &visitor)
    case 4: visitTowers(over: UInt8.self, family: family, from: 0, count: count, &visitor)
    case 5: visitTowers(over: Int16.self, family: family, from: 0, count: count, &visitor)
    case 6: visitTowers(over: Float.self, family: family, from: 0, count: count, &visitor)
    default: visitTowers(over: Character.self, family: family, from: 0, count: count, &visitor)
    }
}

/// Visits the first `count` tower types, family by family from `first` (wrapping around).
private func visitFirst<Visitor: TowerVisitor>(_ count: Int, from first: Int = 0, _ visitor: inout Visitor) {
    var remaining = count
    var family = first
    while remaining > 0 {
        let levels = min(remaining, levelsPerFamily)
        visitFamily(family % familyCount, count: levels, &visitor)
        remaining -= levels
        family += 1
    }
}

/// The key of a tower in the identity maps.
private func towerID(_ family: Int, _ depth: Int) -> Int {
    family * 1_000 + depth
}

/// Registers each tower visited: unnamed, under `name`, or under `name` with an `Int` argument (the
/// instance's tag is then the argument), and forwards its `Floor` to it when `forwardsFloor`.
private struct RegisterTowers: TowerVisitor {
    let container: Container
    let tally: TableAttackTally
    var tag = 0
    var name: String?
    var longNames = false
    var scope = ObjectScope.container
    var forwardsFloor = false
    var withArgument = false
    var onlyDepth: Int?
    var disposed: TableAttackTally?

    mutating func visit<Inner>(_ type: TableAttackTower<Inner>.Type, family: Int, depth: Int) {
        if let onlyDepth, onlyDepth != depth { return }
        let (tally, tag) = (self.tally, self.tag)
        let name = longNames ? longName(depth) : self.name
        if withArgument {
            container.register(type, name: name) { (_: any Resolver, argument: Int) in
                TableAttackTower<Inner>(family: family, depth: depth, tag: argument, tally: tally)
            }
            return
        }
        let entry = container.register(type, name: name) { _ in
            TableAttackTower<Inner>(family: family, depth: depth, tag: tag, tally: tally)
        }
        .inObjectScope(scope)
        if forwardsFloor {
            entry.implements(TableAttackFloor<Inner>.self)
        }
        if let disposed {
            entry.onDispose { _ in disposed.add(1) }
        }
    }
}

/// Resolves each tower visited and checks it; records the identity of each instance in `seen`, or checks
/// it against `seen` when `sameAsSeen`.
private struct CheckTowers: TowerVisitor {
    let resolve: (Any.Type, String?, Int?) -> AnyObject?
    /// The tag expected, or `nil` when nothing should be registered.
    var expectedTag: Int?
    var name: String?
    var longNames = false
    var argument: Int?
    var throughFloor = false
    var onlyDepth: Int?
    var seen: [Int: ObjectIdentifier] = [:]
    var sameAsSeen = false
    var problems: [String] = []

    init(_ container: Container, expectedTag: Int?) {
        resolve = { type, name, argument in
            Self.resolveDynamically(type, name: name, argument: argument, in: container)
        }
        self.expectedTag = expectedTag
    }

    init(_ view: SynchronizedResolver, expectedTag: Int?) {
        resolve = { type, name, argument in
            Self.resolveDynamically(type, name: name, argument: argument, in: view)
        }
        self.expectedTag = expectedTag
    }

    /// Opens the existential to reach the generic `resolve`.
    private static func resolveDynamically(
        _ type: Any.Type,
        name: String?,
        argument: Int?,
        in resolver: any Resolver
    ) -> AnyObject? {
        func open<Service>(_: Service.Type) -> AnyObject? {
            let found: Service? =
                if let argument {
                    resolver.resolve(Service.self, name: name, argument: argument)
                } else {
                    resolver.resolve(Service.self, name: name)
                }
            return found.map { $0 as AnyObject }
        }
        return open(type)
    }

    mutating func visit<Inner>(_ towerType: TableAttackTower<Inner>.Type, family: Int, depth: Int) {
        if let onlyDepth, onlyDepth != depth { return }
        let asked: Any.Type = throughFloor ? TableAttackFloor<Inner>.self : towerType
        let name = longNames ? longName(depth) : self.name
        let found = resolve(asked, name, argument)
        let label = "family \(family) depth \(depth) name \(name ?? "-") argument \(argument.map(String.init) ?? "-")"
        guard let expectedTag else {
            if found != nil { problems.append("\(label): resolved, expected nothing") }
            return
        }
        guard let floor = found as? TableAttackFloor<Inner> else {
            problems.append("\(label): \(found.map { "\(type(of: $0))" } ?? "nil"), expected a tower")
            return
        }
        if floor.family != family || floor.depth != depth || floor.tag != expectedTag {
            problems.append("\(label): got family \(floor.family) depth \(floor.depth) tag \(floor.tag)")
        }
        let id = towerID(family, depth)
        if sameAsSeen {
            if seen[id] != ObjectIdentifier(floor) { problems.append("\(label): another instance") }
        } else {
            seen[id] = ObjectIdentifier(floor)
        }
    }
}

/// Registers the first `count` towers `.container`-scoped with `tag`, from family `first`.
private func registerTowers(
    _ count: Int,
    from first: Int = 0,
    in container: Container,
    tally: TableAttackTally,
    tag: Int
) {
    var register = RegisterTowers(container: container, tally: tally, tag: tag)
    visitFirst(count, from: first, &register)
}

/// Resolves the first `count` towers from family `first` and returns what went wrong.
private func checkTowers(
    _ count: Int,
    from first: Int = 0,
    in container: Container,
    tag: Int?
) -> [String] {
    var check = CheckTowers(container, expectedTag: tag)
    visitFirst(count, from: first, &check)
    return check.problems
}

/// Resolves the first `count` towers from family `first` and returns their identities.
private func identities(
    _ count: Int,
    from first: Int = 0,
    in container: Container,
    tag: Int
) -> [Int: ObjectIdentifier] {
    var check = CheckTowers(container, expectedTag: tag)
    visitFirst(count, from: first, &check)
    #expect(check.problems.isEmpty, "\(check.problems.prefix(5))")
    return check.seen
}

/// The number of registration lines in a container's `description`.
private func descriptionLines(of container: Container) -> Int {
    container.description.split(separator: "\n").filter { $0.contains("{ ") }.count
}

// MARK: - Tests

@Suite("Registration table attacks: uninitialized free positions", .serialized, .tags(.engine))
struct RegistrationTableAttackTests {
    @Test("Hundreds of types with long names, arguments and forwarded types survive growth past 2,048 positions")
    func growthWithEveryKindOfKey() {
        let tally = TableAttackTally()
        do {
            let container = Container()
            // Families 0-1: one registration each, under a heap-allocated name (the hot slot holds it).
            var named = RegisterTowers(container: container, tally: tally, tag: 1, longNames: true)
            visitFamily(0, count: levelsPerFamily, &named)
            visitFamily(1, count: levelsPerFamily, &named)
            // Families 2-3: one registration each, taking an `Int`.
            var withArgument = RegisterTowers(container: container, tally: tally, withArgument: true)
            visitFamily(2, count: levelsPerFamily, &withArgument)
            visitFamily(3, count: levelsPerFamily, &withArgument)
            // Families 4-7: unnamed (forwarded from `Floor`), named, and with an argument, in one bucket.
            var plain = RegisterTowers(container: container, tally: tally, tag: 2, forwardsFloor: true)
            var second = RegisterTowers(container: container, tally: tally, tag: 3, name: "second")
            var third = RegisterTowers(container: container, tally: tally, name: "third", withArgument: true)
            for family in 4..<8 {
                visitFamily(family, count: levelsPerFamily, &plain)
                visitFamily(family, count: levelsPerFamily, &second)
                visitFamily(family, count: levelsPerFamily, &third)
            }
            // 800 tower types and 400 floors: 1,200 positions.
            let expectedCount = 200 + 200 + 4 * 4 * levelsPerFamily
            #expect(container.registeredCount() == expectedCount)
            #expect(container.allRegisteredTypes().count == expectedCount)
            #expect(descriptionLines(of: container) == expectedCount)

            func checkAll(_ seen: [Int: ObjectIdentifier]?) -> [Int: ObjectIdentifier] {
                var namedCheck = CheckTowers(container, expectedTag: 1)
                namedCheck.longNames = true
                namedCheck.seen = seen ?? [:]
                namedCheck.sameAsSeen = seen != nil
                visitFamily(0, count: levelsPerFamily, &namedCheck)
                visitFamily(1, count: levelsPerFamily, &namedCheck)
                // Not under another name, nor without the name.
                var unnamedMiss = CheckTowers(container, expectedTag: nil)
                visitFamily(0, count: levelsPerFamily, &unnamedMiss)
                var argumentCheck = CheckTowers(container, expectedTag: 41)
                argumentCheck.argument = 41
                visitFamily(2, count: levelsPerFamily, &argumentCheck)
                visitFamily(3, count: levelsPerFamily, &argumentCheck)
                // Without the argument, the hot slot of an argument registration must not answer.
                var argumentMiss = CheckTowers(container, expectedTag: nil)
                visitFamily(2, count: levelsPerFamily, &argumentMiss)
                var plainCheck = CheckTowers(container, expectedTag: 2)
                plainCheck.seen = namedCheck.seen
                plainCheck.sameAsSeen = seen != nil
                var floorCheck = CheckTowers(container, expectedTag: 2)
                floorCheck.throughFloor = true
                floorCheck.sameAsSeen = true
                var secondCheck = CheckTowers(container, expectedTag: 3)
                secondCheck.name = "second"
                var thirdCheck = CheckTowers(container, expectedTag: 7)
                thirdCheck.name = "third"
                thirdCheck.argument = 7
                for family in 4..<8 {
                    visitFamily(family, count: levelsPerFamily, &plainCheck)
                    floorCheck.seen = plainCheck.seen
                    visitFamily(family, count: levelsPerFamily, &floorCheck)
                    visitFamily(family, count: levelsPerFamily, &secondCheck)
                    visitFamily(family, count: levelsPerFamily, &thirdCheck)
                }
                let problems =
                    namedCheck.problems + unnamedMiss.problems + argumentCheck.problems + argumentMiss.problems
                    + plainCheck.problems + floorCheck.problems + secondCheck.problems + thirdCheck.problems
                #expect(problems.isEmpty, "\(problems.count) problems, first: \(problems.prefix(5))")
                return plainCheck.seen
            }
            let seen = checkAll(nil)
            // The `.container` instances: 200 named, 400 unnamed and 400 "second"; the argument ones are not kept.
            #expect(tally.count == 1_000)
            // Grows once more, past 2,048 positions, and everything is the same instance.
            var more = RegisterTowers(container: container, tally: tally, tag: 9, name: "more", forwardsFloor: true)
            for family in 0..<4 {
                visitFamily(family, count: levelsPerFamily, &more)
            }
            #expect(container.registeredCount() == expectedCount + 800)
            _ = checkAll(seen)
            #expect(tally.count == 1_000)
        }
        // Releasing the container released every instance.
        #expect(tally.count == 0)
    }

    @Test("Replacing registrations before and after growth drops each replaced instance and serves the newest")
    func replacementAcrossGrowth() {
        let tally = TableAttackTally()
        do {
            let container = Container()
            registerTowers(20, in: container, tally: tally, tag: 1)
            _ = identities(20, in: container, tag: 1)
            #expect(tally.count == 20)
            // Replaced before any growth: the old instances go.
            registerTowers(20, in: container, tally: tally, tag: 2)
            #expect(tally.count == 0)
            let before = identities(20, in: container, tag: 2)
            // A second registration under a name for half of them: their buckets hold several.
            var named = RegisterTowers(container: container, tally: tally, tag: 3, name: "n")
            visitFamily(0, count: 10, &named)
            // Grows from 16 to 1,024 positions.
            registerTowers(500, from: 1, in: container, tally: tally, tag: 4)
            var same = CheckTowers(container, expectedTag: 2)
            same.seen = before
            same.sameAsSeen = true
            visitFirst(20, &same)
            #expect(same.problems.isEmpty, "\(same.problems.prefix(5))")
            // Replaced after growth, unnamed and named: the old instances go, the new ones are served.
            _ = identities(20, in: container, tag: 2)
            var namedCheck = CheckTowers(container, expectedTag: 3)
            namedCheck.name = "n"
            visitFamily(0, count: 10, &namedCheck)
            #expect(namedCheck.problems.isEmpty)
            #expect(tally.count == 30)
            registerTowers(20, in: container, tally: tally, tag: 5)
            named.tag = 6
            visitFamily(0, count: 10, &named)
            #expect(tally.count == 0)
            #expect(checkTowers(20, in: container, tag: 5).isEmpty)
            namedCheck = CheckTowers(container, expectedTag: 6)
            namedCheck.name = "n"
            visitFamily(0, count: 10, &namedCheck)
            #expect(namedCheck.problems.isEmpty)
            #expect(checkTowers(500, from: 1, in: container, tag: 4).isEmpty)
            #expect(container.registeredCount() == 20 + 10 + 500)
            #expect(tally.count == 530)
        }
        #expect(tally.count == 0)
    }

    @Test("removeAll() at every size around the growth thresholds, then the same types or others again")
    func removeAllAtEverySize() {
        let tally = TableAttackTally()
        do {
            let container = Container()
            let sizes = [0, 1, 5, 11, 12, 13, 23, 24, 25, 47, 48, 49, 95, 96, 97, 191, 192, 300, 12, 700, 1, 400]
            for (round, size) in sizes.enumerated() {
                // Even rounds from family 0, odd rounds from family 4: a type dropped by a growth comes back.
                let first = round.isMultiple(of: 2) ? 0 : 4
                registerTowers(size, from: first, in: container, tally: tally, tag: round)
                #expect(container.registeredCount() == size)
                #expect(checkTowers(size, from: first, in: container, tag: round).isEmpty, "round \(round)")
                #expect(tally.count == size)
                container.removeAll()
                #expect(tally.count == 0, "round \(round)")
                #expect(container.registeredCount() == 0)
                #expect(descriptionLines(of: container) == 0)
                #expect(checkTowers(min(size, 150), from: first, in: container, tag: nil).isEmpty)
            }
            // Filled again after all that: every type resolves, once, to the newest registration.
            registerTowers(800, in: container, tally: tally, tag: 99)
            let seen = identities(800, in: container, tag: 99)
            #expect(Set(seen.values).count == 800)
            #expect(container.registeredCount() == 800)
            #expect(descriptionLines(of: container) == 800)
        }
        #expect(tally.count == 0)
    }

    @Test("A deinit that registers hundreds of types during removeAll(), replacement or a reset grows the table safely")
    func deinitRegistersWhileTheTableChanges() {
        let tally = TableAttackTally()
        do {
            let container = Container()
            // Registered into the container by the trigger's deinit: a new family each time.
            let registered = TableAttackTally()
            func registerTrigger(registering family: Int) {
                container.register(TableAttackTrigger.self) { [unowned container] _ in
                    TableAttackTrigger {
                        var register = RegisterTowers(container: container, tally: tally, tag: 10 + family)
                        visitFamily(family, count: levelsPerFamily, &register)
                        registered.add(levelsPerFamily)
                    }
                }
                .inObjectScope(.container)
                #expect(container.resolve(TableAttackTrigger.self) != nil)
            }
            registerTowers(11, in: container, tally: tally, tag: 1)
            #expect(checkTowers(11, in: container, tag: 1).isEmpty)
            // removeAll(): the table is empty (11 positions emptied) when the deinit registers 100 types.
            registerTrigger(registering: 1)
            container.removeAll()
            #expect(registered.count == 100)
            #expect(container.registeredCount() == 100)
            #expect(container.resolve(TableAttackTrigger.self) == nil)
            #expect(checkTowers(11, in: container, tag: nil).isEmpty)
            var check = CheckTowers(container, expectedTag: 11)
            visitFamily(1, count: levelsPerFamily, &check)
            #expect(check.problems.isEmpty, "\(check.problems.prefix(5))")
            // Replacement: the replaced trigger's instance goes, and its deinit grows the table again.
            registerTrigger(registering: 2)
            registerTrigger(registering: 3)
            #expect(registered.count == 200)
            #expect(container.registeredCount() == 201)
            // A reset of `.container`: the trigger's instance goes (and every tower's), registering another family.
            container.resetObjectScope(.container)
            #expect(registered.count == 300)
            #expect(container.registeredCount() == 301)
            #expect(tally.count == 0)
            for family in 1...3 {
                check = CheckTowers(container, expectedTag: 10 + family)
                visitFamily(family, count: levelsPerFamily, &check)
                #expect(check.problems.isEmpty, "family \(family): \(check.problems.prefix(5))")
            }
            #expect(tally.count == 300)
            // A child's release: its trigger's deinit registers into the parent, which grows.
            do {
                let child = Container(parent: container)
                child.register(TableAttackTrigger.self) { [unowned container] _ in
                    TableAttackTrigger {
                        var register = RegisterTowers(container: container, tally: tally, tag: 14)
                        visitFamily(4, count: levelsPerFamily, &register)
                        visitFamily(5, count: levelsPerFamily, &register)
                        registered.add(2 * levelsPerFamily)
                    }
                }
                .inObjectScope(.container)
                registerTowers(40, from: 6, in: child, tally: tally, tag: 20)
                #expect(child.resolve(TableAttackTrigger.self) != nil)
                #expect(checkTowers(40, from: 6, in: child, tag: 20).isEmpty)
            }
            #expect(registered.count == 500)
            #expect(container.registeredCount() == 501)
            #expect(checkTowers(200, from: 4, in: container, tag: 14).isEmpty)
            #expect(tally.count == 500)
        }
        #expect(tally.count == 0)
    }

    @Test("A factory that registers hundreds of types and replaces its own registration while it is resolved")
    func factoryRegistersMidResolve() {
        let tally = TableAttackTally()
        do {
            let container = Container()
            registerTowers(10, from: 7, in: container, tally: tally, tag: 1)
            let kept = identities(10, from: 7, in: container, tag: 1)
            container.register(TableAttackBuilder.self) { [unowned container] resolver in
                // Grows from 16 to 1,024 positions mid-resolve.
                registerTowers(400, in: container, tally: tally, tag: 2)
                // Replaces the registration being resolved (its first, the hot slot's).
                container.register(TableAttackBuilder.self) { _ in TableAttackBuilder(tag: 2) }
                    .inObjectScope(.container)
                // Resolves what was registered before and during this factory.
                let old = resolver.resolve(TableAttackTower<Int>.self)
                let oldTag = (resolver.resolve(TableAttackBuilder.self)?.tag ?? 0)
                return TableAttackBuilder(tag: (old?.tag ?? 0) * 10 + oldTag)
            }
            .inObjectScope(.container)
            // `Tower<Int>` is the first of family 0, resolved inside the factory with tag 2; the builder
            // resolved inside it is the replacement (tag 2).
            #expect(container.resolve(TableAttackBuilder.self)?.tag == 22)
            #expect(container.resolve(TableAttackBuilder.self)?.tag == 2)
            #expect(checkTowers(400, in: container, tag: 2).isEmpty)
            var same = CheckTowers(container, expectedTag: 1)
            same.seen = kept
            same.sameAsSeen = true
            visitFamily(7, count: 10, &same)
            #expect(same.problems.isEmpty)
            #expect(container.registeredCount() == 10 + 400 + 1)

            // Through a child, whose lookup reaches the parent's registration: the factory grows both.
            let child = Container(parent: container)
            container.register(TableAttackBuilder.self, name: "parent") { [unowned container, unowned child] _ in
                registerTowers(300, from: 4, in: container, tally: tally, tag: 3)
                registerTowers(100, from: 6, in: child, tally: tally, tag: 4)
                return TableAttackBuilder(tag: 3)
            }
            #expect(child.resolve(TableAttackBuilder.self, name: "parent")?.tag == 3)
            #expect(checkTowers(100, from: 6, in: child, tag: 4).isEmpty)
            #expect(checkTowers(200, from: 4, in: child, tag: 3).isEmpty)
            #expect(checkTowers(100, from: 6, in: container, tag: 3).isEmpty)
            #expect(child.registeredCount() == 100)

            // Through the synchronized view: the lock is recursive, the factory registers under it.
            let view = container.synchronize()
            container.register(TableAttackBuilder.self, name: "view") { [unowned container] _ in
                var register = RegisterTowers(container: container, tally: tally, tag: 5, name: "view")
                visitFirst(300, &register)
                return TableAttackBuilder(tag: 5)
            }
            #expect(view.resolve(TableAttackBuilder.self, name: "view")?.tag == 5)
            var viewCheck = CheckTowers(view, expectedTag: 5)
            viewCheck.name = "view"
            visitFirst(300, &viewCheck)
            #expect(viewCheck.problems.isEmpty, "\(viewCheck.problems.prefix(5))")
        }
        #expect(tally.count == 0)
    }

    @Test("A factory that empties the container with removeAll() mid-resolve, then grows it again")
    func factoryEmptiesTheContainerMidResolve() {
        let tally = TableAttackTally()
        do {
            let container = Container()
            registerTowers(40, in: container, tally: tally, tag: 1)
            _ = identities(40, in: container, tag: 1)
            #expect(tally.count == 40)
            container.register(TableAttackBuilder.self) { [unowned container] _ in
                // The registration being resolved goes with the rest; the growth drops its position.
                container.removeAll()
                registerTowers(600, from: 2, in: container, tally: tally, tag: 2)
                return TableAttackBuilder(tag: 1)
            }
            .inObjectScope(.container)
            #expect(container.resolve(TableAttackBuilder.self)?.tag == 1)
            #expect(tally.count == 0)
            #expect(container.resolve(TableAttackBuilder.self) == nil)
            #expect(container.registeredCount() == 600)
            #expect(checkTowers(600, from: 2, in: container, tag: 2).isEmpty)
            #expect(checkTowers(40, in: container, tag: nil).isEmpty)
            container.register(TableAttackBuilder.self) { _ in TableAttackBuilder(tag: 3) }
            #expect(container.resolve(TableAttackBuilder.self)?.tag == 3)
            #expect(tally.count == 600)
        }
        #expect(tally.count == 0)
    }

    @Test("Forwarded keys keep the instance they reach across replacement and growth; a forward-only type")
    func forwardedKeysAcrossGrowth() {
        let tally = TableAttackTally()
        do {
            let container = Container()
            var register = RegisterTowers(container: container, tally: tally, tag: 1, forwardsFloor: true)
            visitFamily(0, count: 30, &register)
            var floors = CheckTowers(container, expectedTag: 1)
            floors.throughFloor = true
            visitFamily(0, count: 30, &floors)
            #expect(floors.problems.isEmpty)
            #expect(tally.count == 30)
            // Replaced under its own key: the instance stays while `Floor` still reaches the old entry.
            register = RegisterTowers(container: container, tally: tally, tag: 2)
            visitFamily(0, count: 30, &register)
            #expect(tally.count == 30)
            // Grows to 1,024 positions.
            registerTowers(500, from: 1, in: container, tally: tally, tag: 3)
            var sameFloors = CheckTowers(container, expectedTag: 1)
            sameFloors.throughFloor = true
            sameFloors.seen = floors.seen
            sameFloors.sameAsSeen = true
            visitFamily(0, count: 30, &sameFloors)
            #expect(sameFloors.problems.isEmpty, "\(sameFloors.problems.prefix(5))")
            var towers = CheckTowers(container, expectedTag: 2)
            visitFamily(0, count: 30, &towers)
            #expect(towers.problems.isEmpty)
            #expect(container.registeredCount() == 30 + 30 + 500)
            #expect(tally.count == 60)

            // A type whose only registration is forwarded (no hot entry), then registered directly.
            let entry = container.register(TableAttackTower<UInt64>.self) { _ in
                TableAttackTower<UInt64>(family: 9, depth: 0, tag: 7, tally: tally)
            }
            .inObjectScope(.container)
            container.forward(TableAttackFloor<UInt64>.self, name: longName(1), to: entry)
            container.forward(TableAttackFloor<Int32>.self, to: entry)
            #expect(container.resolve(TableAttackFloor<UInt64>.self, name: longName(1))?.tag == 7)
            // Not a `Floor<Int32>`: the resolve fails rather than returning another type.
            #expect(container.resolve(TableAttackFloor<Int32>.self) == nil)
            registerTowers(200, from: 6, in: container, tally: tally, tag: 4)
            #expect(container.resolve(TableAttackFloor<UInt64>.self, name: longName(1))?.tag == 7)
            // Registered directly under the forwarded key: it replaces the forward, the tower stays.
            container.register(TableAttackFloor<UInt64>.self, name: longName(1)) { _ in
                TableAttackFloor<UInt64>(family: 9, depth: 1, tag: 8, tally: tally)
            }
            #expect(container.resolve(TableAttackFloor<UInt64>.self, name: longName(1))?.tag == 8)
            #expect(container.resolve(TableAttackTower<UInt64>.self)?.tag == 7)
            #expect(container.registeredCount() == 560 + 1 + 2 + 200)
        }
        #expect(tally.count == 0)
    }

    @Test("A child resolves through a parent that grows under it; resetObjectScope and dispose() after growth")
    func hierarchyResetAndDisposeAfterGrowth() throws {
        let tally = TableAttackTally()
        let disposed = TableAttackTally()
        do {
            let parent = Container()
            var inParent = RegisterTowers(container: parent, tally: tally, tag: 1, disposed: disposed)
            visitFirst(30, &inParent)
            let child = Container(parent: parent)
            var inChild = RegisterTowers(container: child, tally: tally, tag: 2, disposed: disposed)
            visitFirst(30, from: 1, &inChild)
            var check = CheckTowers(child, expectedTag: 1)
            visitFirst(30, &check)
            #expect(check.problems.isEmpty)
            let parentSeen = check.seen
            // Both grow to 512 positions.
            visitFirst(300, from: 2, &inParent)
            visitFirst(300, from: 5, &inChild)
            check = CheckTowers(child, expectedTag: 1)
            check.seen = parentSeen
            check.sameAsSeen = true
            visitFirst(30, &check)
            #expect(check.problems.isEmpty, "\(check.problems.prefix(5))")
            // The child's registrations shadow the parent's.
            #expect(checkTowers(30, from: 1, in: child, tag: 2).isEmpty)
            #expect(checkTowers(300, from: 5, in: child, tag: 2).isEmpty)
            #expect(checkTowers(100, from: 2, in: parent, tag: 1).isEmpty)
            let alive = tally.count
            #expect(alive == 30 + 30 + 300 + 100)
            // A reset from the child drops the `.container` instances here and in the parent.
            child.resetObjectScope(.container)
            #expect(tally.count == 0)
            #expect(disposed.count == alive)
            check = CheckTowers(child, expectedTag: 1)
            check.seen = parentSeen
            visitFirst(30, &check)
            #expect(check.problems.isEmpty)
            #expect(checkTowers(300, from: 5, in: child, tag: 2).isEmpty)
            #expect(tally.count == 330)
            // dispose() of the grown child ends its own instances only.
            try child.dispose()
            #expect(tally.count == 30)
            #expect(disposed.count == alive + 300)
            try parent.dispose()
            #expect(tally.count == 0)
            #expect(disposed.count == alive + 330)
            #expect(parent.registeredCount() == 330)
            #expect(child.registeredCount() == 330)
            #expect(descriptionLines(of: child) == 330)
        }
        #expect(tally.count == 0)
    }

    @Test("The actor front releases a type, the table grows past its position, and the type comes back")
    func actorReleaseThenGrowth() async {
        let actor = DIActor()
        await actor.register(TableAttackMark<Int>.self, instance: TableAttackMark(depth: 0, tag: 1))
        await actor.register(TableAttackMark<String>.self, instance: TableAttackMark(depth: 0, tag: 1))
        await actor.release(TableAttackMark<Int>.self)
        #expect(await actor.resolve(TableAttackMark<Int>.self) == nil)
        #expect(await actor.registeredCount() == 1)
        // Enough types to grow past the released position (from 16 to 256 positions).
        let grown = await registerMarks(over: Double.self, from: 0, count: 150, into: actor)
        #expect(grown == 150)
        #expect(await actor.resolve(TableAttackMark<Int>.self) == nil)
        #expect(await actor.resolve(TableAttackMark<String>.self)?.tag == 1)
        await actor.register(TableAttackMark<Int>.self, instance: TableAttackMark(depth: 0, tag: 2))
        #expect(await actor.resolve(TableAttackMark<Int>.self)?.tag == 2)
        #expect(await actor.registeredCount() == 152)
        #expect(await resolveMarks(over: Double.self, from: 0, count: 150, from: actor) == 150)
        // Released one by one, then everything; then registered again.
        await actor.release(TableAttackMark<String>.self)
        await actor.releaseAll()
        #expect(await actor.registeredCount() == 0)
        #expect(await resolveMarks(over: Double.self, from: 0, count: 150, from: actor) == 0)
        _ = await registerMarks(over: Bool.self, from: 0, count: 200, into: actor)
        _ = await registerMarks(over: Double.self, from: 0, count: 150, into: actor)
        #expect(await actor.registeredCount() == 350)
        #expect(await resolveMarks(over: Double.self, from: 0, count: 150, from: actor) == 150)
        #expect(await resolveMarks(over: Bool.self, from: 0, count: 200, from: actor) == 200)
    }

    @Test("DependencyRegistry.reset() releases hundreds of types, and the grown table serves others")
    func dependencyRegistryResetAfterGrowth() {
        let tally = TableAttackTally()
        let container = Container()
        Container.withCurrent(container) {
            var front = FrontRegister(tally: tally, tag: 1)
            visitFirst(300, &front)
            #expect(container.registeredCount() == 300)
            var resolved = FrontResolve(expectedTag: 1)
            visitFirst(300, &resolved)
            #expect(resolved.problems.isEmpty, "\(resolved.problems.prefix(5))")
            DependencyRegistry.reset()
            #expect(container.registeredCount() == 0)
            // Past the emptied positions: the next growth drops them.
            registerTowers(400, from: 3, in: container, tally: tally, tag: 2)
            var gone = FrontResolve(expectedTag: nil)
            visitFirst(300, &gone)
            #expect(gone.problems.isEmpty, "\(gone.problems.prefix(5))")
            front.tag = 3
            visitFirst(300, &front)
            resolved = FrontResolve(expectedTag: 3)
            visitFirst(300, &resolved)
            #expect(resolved.problems.isEmpty, "\(resolved.problems.prefix(5))")
            #expect(container.registeredCount() == 700)
        }
        container.removeAll()
        #expect(tally.count == 0)
    }

    @Test("One service type under hundreds of names and argument types, while the table grows around it")
    func oneTypeUnderManyKeys() {
        let tally = TableAttackTally()
        do {
            let container = Container()
            container.register(TableAttackTower<UInt32>.self) { _ in
                TableAttackTower<UInt32>(family: 9, depth: -1, tag: -1, tally: tally)
            }
            // Resolved on first access, so from the newest registration.
            let lazy = container.resolve(Lazy<TableAttackTower<UInt32>>.self)
            #expect(lazy != nil)
            for round in 0..<3 {
                for index in 0..<150 {
                    container.register(TableAttackTower<UInt32>.self, name: longName(index)) { _ in
                        TableAttackTower<UInt32>(family: 9, depth: index, tag: round, tally: tally)
                    }
                    .inObjectScope(.container)
                    container.register(TableAttackTower<UInt32>.self, name: "\(index)") {
                        (_: any Resolver, first: Int, second: String) in
                        TableAttackTower<UInt32>(family: 9, depth: first, tag: Int(second) ?? -1, tally: tally)
                    }
                    // Another type in between (150 in all): the table grows while this type's bucket grows.
                    var other = RegisterTowers(container: container, tally: tally, tag: round)
                    other.onlyDepth = index / 8
                    visitFamily(index % 8, count: index / 8 + 1, &other)
                }
                // Every round replaces everything the one before registered.
                container.register(TableAttackTower<UInt32>.self) { _ in
                    TableAttackTower<UInt32>(family: 9, depth: -1, tag: round, tally: tally)
                }
                var problems: [Int] = []
                for index in 0..<150 {
                    let named = container.resolve(TableAttackTower<UInt32>.self, name: longName(index))
                    if named?.depth != index || named?.tag != round { problems.append(index) }
                    let withArguments = container.resolve(
                        TableAttackTower<UInt32>.self,
                        name: "\(index)",
                        arguments: index,
                        "\(round)"
                    )
                    if withArguments?.depth != index || withArguments?.tag != round { problems.append(-index) }
                }
                #expect(problems.isEmpty, "round \(round): \(problems.prefix(10))")
                #expect(container.resolve(TableAttackTower<UInt32>.self)?.tag == round)
                // Kept by the 150 `.container` registrations only.
                #expect(tally.count == 150)
            }
            // The `Lazy` made before any of it resolves the unnamed registration now.
            #expect(lazy?.instance.tag == 2)
            #expect(container.registeredCount() == 301 + 150)
        }
        #expect(tally.count == 0)
    }

    @Test("An async factory suspended while the table grows and its registration is replaced")
    func asyncFactorySuspendedWhileGrowing() async throws {
        let tally = TableAttackTally()
        do {
            let container = Container()
            let view = container.synchronize()
            registerTowers(10, in: container, tally: tally, tag: 1)
            container.registerAsync(TableAttackAsyncBuilder.self) { resolver in
                await Task.yield()
                view.withContainer { container in
                    // Grows from 16 to 1,024 positions and replaces the registration being created.
                    registerTowers(500, from: 1, in: container, tally: tally, tag: 2)
                    container.registerAsync(TableAttackAsyncBuilder.self) { _ in TableAttackAsyncBuilder(tag: 2) }
                        .inObjectScope(.container)
                }
                await Task.yield()
                let tower = try await resolver.resolveAsync(TableAttackTower<String>.self)
                return TableAttackAsyncBuilder(tag: tower.tag * 10)
            }
            .inObjectScope(.container)
            let first = try await view.resolveAsync(TableAttackAsyncBuilder.self)
            #expect(first.tag == 20)
            let second = try await view.resolveAsync(TableAttackAsyncBuilder.self)
            #expect(second.tag == 2)
            #expect(checkTowers(10, in: container, tag: 1).isEmpty)
            #expect(checkTowers(500, from: 1, in: container, tag: 2).isEmpty)
            #expect(container.registeredCount() == 511)
        }
        #expect(tally.count == 0)
    }

    @Test("verify() on a grown container whose factories register: the real table is left as it was")
    func verifyWithRegisteringFactories() {
        let tally = TableAttackTally()
        do {
            let container = Container()
            registerTowers(300, in: container, tally: tally, tag: 1)
            var seen = identities(300, in: container, tag: 1)
            container.register(TableAttackBuilder.self) { [unowned container] _ in
                registerTowers(400, from: 3, in: container, tally: tally, tag: 2)
                return TableAttackBuilder(tag: 2)
            }
            // A factory that empties the container while it is inspected: only the scratch copies go.
            container.register(TableAttackBuilder.self, name: "clearing") { [unowned container] _ in
                container.removeAll()
                registerTowers(100, from: 7, in: container, tally: tally, tag: 3)
                return TableAttackBuilder(tag: 3)
            }
            #expect(container.verify().isEmpty)
            #expect(container.registeredCount() == 302)
            var kept = CheckTowers(container, expectedTag: 1)
            kept.seen = seen
            kept.sameAsSeen = true
            visitFirst(300, &kept)
            #expect(kept.problems.isEmpty, "\(kept.problems.prefix(5))")
            #expect(tally.count == 300)
            #expect(container.resolve(TableAttackBuilder.self, name: "clearing") != nil)
            #expect(container.registeredCount() == 100)
            #expect(checkTowers(100, from: 7, in: container, tag: 3).isEmpty)
            container.removeAll()
            #expect(tally.count == 0)
            registerTowers(300, in: container, tally: tally, tag: 1)
            seen = identities(300, in: container, tag: 1)
            container.register(TableAttackBuilder.self) { [unowned container] _ in
                registerTowers(400, from: 3, in: container, tally: tally, tag: 2)
                return TableAttackBuilder(tag: 2)
            }
            #expect(container.verify().isEmpty)
            #expect(container.registeredCount() == 301)
            var same = CheckTowers(container, expectedTag: 1)
            same.seen = seen
            same.sameAsSeen = true
            visitFirst(300, &same)
            #expect(same.problems.isEmpty, "\(same.problems.prefix(5))")
            #expect(checkTowers(100, from: 6, in: container, tag: nil).isEmpty)
            // For real, now.
            #expect(container.resolve(TableAttackBuilder.self)?.tag == 2)
            #expect(container.registeredCount() == 301 + 400)
            #expect(checkTowers(400, from: 3, in: container, tag: 2).isEmpty)
        }
        #expect(tally.count == 0)
    }
}

// MARK: - Fronts

/// Registers each tower through `DependencyRegistry`.
private struct FrontRegister: TowerVisitor {
    let tally: TableAttackTally
    var tag: Int

    mutating func visit<Inner>(_: TableAttackTower<Inner>.Type, family: Int, depth: Int) {
        let (tally, tag) = (self.tally, self.tag)
        DependencyRegistry.register { TableAttackTower<Inner>(family: family, depth: depth, tag: tag, tally: tally) }
    }
}

/// Resolves each tower through `DependencyRegistry.optional()`.
private struct FrontResolve: TowerVisitor {
    var expectedTag: Int?
    var problems: [String] = []

    mutating func visit<Inner>(_: TableAttackTower<Inner>.Type, family: Int, depth: Int) {
        let found: TableAttackTower<Inner>? = DependencyRegistry.optional()
        if found?.tag != expectedTag || (found != nil && found?.depth != depth) {
            problems.append("family \(family) depth \(depth): tag \(found.map { "\($0.tag)" } ?? "nil")")
        }
    }
}

/// Registers `Mark<Inner>` and the levels above it with the actor; returns how many.
private func registerMarks<Inner>(over _: Inner.Type, from depth: Int, count: Int, into actor: DIActor) async -> Int {
    guard depth < count else { return 0 }
    await actor.register(TableAttackMark<Inner>.self, instance: TableAttackMark(depth: depth, tag: 5))
    return await 1 + registerMarks(over: TableAttackMark<Inner>.self, from: depth + 1, count: count, into: actor)
}

/// Resolves `Mark<Inner>` and the levels above it from the actor; returns how many resolved right.
private func resolveMarks<Inner>(over _: Inner.Type, from depth: Int, count: Int, from actor: DIActor) async -> Int {
    guard depth < count else { return 0 }
    let found = await actor.resolve(TableAttackMark<Inner>.self)
    let right = found?.depth == depth && found?.tag == 5 ? 1 : 0
    return await right + resolveMarks(over: TableAttackMark<Inner>.self, from: depth + 1, count: count, from: actor)
}

// MARK: - Threads

@Suite("Registration table attacks: threads", .serialized, .tags(.engine, .concurrency), .hangLimit)
struct RegistrationTableThreadAttackTests {
    @Test("Threads register their own types through withContainer and resolve them while the table grows")
    func threadsRegisterAndResolveWhileGrowing() {
        let tally = TableAttackTally()
        let failures = SerialLog()
        let churned = SerialLog()
        let workers = 4
        let levels = levelsPerFamily
        weak var weakContainer: Container?
        do {
            let container = Container()
            container.register(TableAttackAnchor.self) { _ in TableAttackAnchor() }.inObjectScope(.container)
            let view = container.synchronize()
            guard let anchor = view.resolve(TableAttackAnchor.self) else {
                Issue.record("no anchor")
                return
            }
            let anchorID = ObjectIdentifier(anchor)
            let group = DispatchGroup()
            for worker in 0..<workers {
                group.enter()
                let thread = Thread {
                    defer { group.leave() }
                    var seen: [Int: ObjectIdentifier] = [:]
                    for level in 0..<levels {
                        for family in [2 * worker, 2 * worker + 1] {
                            view.withContainer { container in
                                var register = RegisterTowers(container: container, tally: tally, tag: worker)
                                register.onlyDepth = level
                                visitFamily(family, count: level + 1, &register)
                            }
                            // Every level registered so far, the same instance each time.
                            var check = CheckTowers(view, expectedTag: worker)
                            check.seen = seen
                            check.sameAsSeen = level > 0
                            if level > 0 {
                                // The new level is not in `seen` yet: checked on its own.
                                visitFamily(family, count: level, &check)
                                var newest = CheckTowers(view, expectedTag: worker)
                                newest.onlyDepth = level
                                visitFamily(family, count: level + 1, &newest)
                                check.problems += newest.problems
                                seen.merge(newest.seen) { old, _ in old }
                            } else {
                                visitFamily(family, count: 1, &check)
                                seen.merge(check.seen) { old, _ in old }
                            }
                            if !check.problems.isEmpty { failures.add(worker * 1_000 + level) }
                            if view.resolve(TableAttackAnchor.self).map(ObjectIdentifier.init) != anchorID {
                                failures.add(-1)
                            }
                        }
                    }
                }
                thread.stackSize = 4 << 20
                thread.start()
            }
            // A fifth thread replaces one registration again and again, and resolves it.
            group.enter()
            Thread {
                defer { group.leave() }
                for round in 0..<300 {
                    view.withContainer { container in
                        container.register(TableAttackChurn.self) { _ in TableAttackChurn(round: round) }
                            .inObjectScope(.container)
                    }
                    if let churn = view.resolve(TableAttackChurn.self), churn.round == round {
                        churned.add(churn.round)
                    } else {
                        failures.add(-2)
                    }
                }
            }
            .start()
            #expect(group.wait(timeout: .now() + 240) == .success, "no thread hangs")
            #expect(failures.all.isEmpty, "\(failures.all.prefix(10))")
            #expect(churned.all.count == 300)
            #expect(container.registeredCount() == workers * 2 * levels + 2)
            #expect(tally.count == workers * 2 * levels)
            for worker in 0..<workers {
                var check = CheckTowers(container, expectedTag: worker)
                visitFamily(2 * worker, count: levels, &check)
                visitFamily(2 * worker + 1, count: levels, &check)
                #expect(check.problems.isEmpty, "worker \(worker): \(check.problems.prefix(5))")
            }
            #expect(tally.count == workers * 2 * levels)
            // The threads' closures hold the view, so the container, until they are released: emptied here,
            // the table must release every instance whatever holds the container.
            weakContainer = container
            container.removeAll()
            #expect(tally.count == 0)
            #expect(container.registeredCount() == 0)
        }
        // The container goes once the threads' closures are released.
        let deadline = Date().addingTimeInterval(30)
        while weakContainer != nil, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(weakContainer == nil)
        #expect(tally.count == 0)
    }
}

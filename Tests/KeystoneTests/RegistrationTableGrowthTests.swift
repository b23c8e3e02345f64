import Keystone
import Testing

/// A distinct service type per nesting level: `Level<Int>`, `Level<Level<Int>>`, and so on.
private final class Level<Inner> {
    let depth: Int
    init(depth: Int) { self.depth = depth }
}

/// Counts the instances alive, to see that releasing a container releases everything its table held.
private final class GrowthTracked {
    nonisolated(unsafe) static var alive = 0
    let depth: Int
    init(depth: Int) {
        self.depth = depth
        GrowthTracked.alive += 1
    }
    deinit { GrowthTracked.alive -= 1 }
}

/// Registers `Level<T>` and the levels above it up to `count`, `.container`-scoped, each with a `GrowthTracked`
/// named by its depth (`.container` at even depths, `.weak` at odd ones); each level's instance goes in
/// `kept`.
private func registerLevels<T>(
    _: T.Type,
    from depth: Int,
    count: Int,
    in container: Container,
    kept: inout [Int: AnyObject]
) {
    guard depth < count else { return }
    container.register(Level<T>.self) { _ in Level<T>(depth: depth) }.inObjectScope(.container)
    container.register(GrowthTracked.self, name: "\(depth)") { _ in GrowthTracked(depth: depth) }
        .inObjectScope(depth.isMultiple(of: 2) ? .container : .weak)
    kept[depth] = container.resolve(Level<T>.self)
    registerLevels(Level<T>.self, from: depth + 1, count: count, in: container, kept: &kept)
}

/// Resolves every level again and checks each is the instance kept when it was registered.
private func checkLevels<T>(_: T.Type, from depth: Int, count: Int, in container: Container, kept: [Int: AnyObject]) {
    guard depth < count else { return }
    let level = container.resolve(Level<T>.self)
    #expect(level?.depth == depth)
    #expect(level === kept[depth])
    checkLevels(Level<T>.self, from: depth + 1, count: count, in: container, kept: kept)
}

/// Resolves the `GrowthTracked` of each depth in `depths`, keeping none.
private func resolveTracked(_ depths: Range<Int>, in container: Container) {
    for depth in depths {
        #expect(container.resolve(GrowthTracked.self, name: "\(depth)")?.depth == depth)
    }
}

@Suite("Registration table growth", .serialized, .tags(.engine))
struct RegistrationTableGrowthTests {
    @Test("Instances, weak instances and names survive the table growing several times")
    func growthKeepsEverything() {
        GrowthTracked.alive = 0
        let count = 150
        var kept: [Int: AnyObject] = [:]
        do {
            let container = Container()
            var strong: [GrowthTracked] = []
            // Grows from 16 positions past 256 (one service type per level, plus `GrowthTracked`).
            registerLevels(Int.self, from: 0, count: count, in: container, kept: &kept)
            for depth in 0..<count {
                let tracked = container.resolve(GrowthTracked.self, name: "\(depth)")
                #expect(tracked?.depth == depth)
                if let tracked { strong.append(tracked) }
            }
            checkLevels(Int.self, from: 0, count: count, in: container, kept: kept)
            // The weak instances are the ones held here; the container hands them out again.
            for depth in stride(from: 1, to: count, by: 2) {
                #expect(container.resolve(GrowthTracked.self, name: "\(depth)") === strong[depth])
            }
            #expect(GrowthTracked.alive == count)
            strong.removeAll()
            // The `.weak` ones are gone; the `.container` ones stay with the container.
            #expect(GrowthTracked.alive == count / 2)
            #expect(container.registeredCount() == 2 * count)
        }
        // Releasing the container released every instance its table held.
        #expect(GrowthTracked.alive == 0)
    }

    @Test("A registration removed before the table grows stays removed after")
    func removalSurvivesGrowth() {
        let container = Container()
        container.register(String.self) { _ in "first" }
        container.removeAll()
        var kept: [Int: AnyObject] = [:]
        registerLevels(Int.self, from: 0, count: 40, in: container, kept: &kept)
        #expect(container.resolve(String.self) == nil)
        container.register(String.self) { _ in "second" }
        #expect(container.resolve(String.self) == "second")
        checkLevels(Int.self, from: 0, count: 40, in: container, kept: kept)
    }

    @Test("A grown table emptied by removeAll() grows again, and releases everything it ever held")
    func growthAfterRemoveAll() {
        GrowthTracked.alive = 0
        do {
            let container = Container()
            var kept: [Int: AnyObject] = [:]
            // Past 64 positions, then every position emptied: the next growth moves only the new ones.
            registerLevels(Int.self, from: 0, count: 60, in: container, kept: &kept)
            // Made and dropped at once unless `.container`-scoped (even depths): half stay.
            resolveTracked(0..<60, in: container)
            #expect(GrowthTracked.alive == 30)
            container.removeAll()
            #expect(GrowthTracked.alive == 0)
            #expect(container.resolve(Level<Int>.self) == nil)
            var keptAgain: [Int: AnyObject] = [:]
            registerLevels(String.self, from: 0, count: 120, in: container, kept: &keptAgain)
            checkLevels(String.self, from: 0, count: 120, in: container, kept: keptAgain)
            #expect(container.resolve(Level<Int>.self) == nil)
            #expect(container.registeredCount() == 240)
            resolveTracked(0..<120, in: container)
            #expect(GrowthTracked.alive == 60)
        }
        #expect(GrowthTracked.alive == 0)
    }
}

// swift-format-ignore-file
// (The samples here mirror the articles' text line for line: see ArticleSamplesTests.)
import Foundation
import Keystone
import Testing

// The samples of ThreadSafety.md, verbatim, each followed by the facts the article states about it.
// The article's own types are nested in the suite below. The debug-build check the article describes
// is tested in ConcurrencyTests ("In debug builds, a second thread entering an unsynchronized
// container mid-resolve stops with advice").

@Suite("Article: Thread Safety", .tags(.concurrency), .hangLimit)
struct ThreadSafetyArticleTests {
    @Test("Eight tasks resolve through one view; every stopwatch gets the one container-scoped clock")
    func tasksShareAView() async {
        let container = Container()
        container.register(Clock.self) { _ in SystemClock() }.inObjectScope(.container)
        container.register(Stopwatch.self) { r in Stopwatch(clock: try r.resolveThrows(Clock.self)) }

        let resolver = container.synchronize()
        let stopwatches = await withTaskGroup(of: Stopwatch?.self) { group in
            for _ in 0..<8 {
                group.addTask { resolver.resolve(Stopwatch.self) }
            }
            return await group.reduce(into: [Stopwatch?]()) { $0.append($1) }
        }
        // eight stopwatches, all made with the one SystemClock

        let made = stopwatches.compactMap { $0 }
        #expect(made.count == 8)
        #expect(Set(made.map(ObjectIdentifier.init)).count == 8)
        let clocks = Set(made.compactMap { ($0.clock as? SystemClock).map(ObjectIdentifier.init) })
        #expect(clocks.count == 1)
    }

    @Test("Lazy and Provider obtained through the view resolve later, under the lock, from other tasks")
    func lazyAndProviderUnderTheLock() async {
        let clocksMade = Counter()
        let stopwatchesMade = Counter()
        let container = Container()
        container.register(Clock.self) { _ in
            clocksMade.increment()
            return SystemClock()
        }
        container.register(Stopwatch.self) { r in
            stopwatchesMade.increment()
            return Stopwatch(clock: try r.resolveThrows(Clock.self))
        }

        let resolver = container.synchronize()
        let clock = resolver.resolve(Lazy<Clock>.self)!
        let stopwatches = resolver.resolve(Provider<Stopwatch>.self)!

        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    _ = clock.instance        // resolved once, by the first task to get here
                    _ = stopwatches.instance  // a new Stopwatch on every access
                }
            }
        }

        #expect(stopwatchesMade.count == 4)
        #expect(clocksMade.count == 5, "one clock for the Lazy, one for each new Stopwatch (.graph scope)")
        #expect((clock.instance as? SystemClock) === (clock.instance as? SystemClock))
        #expect(clocksMade.count == 5, "the Lazy keeps its clock")
    }

    @Test("A view typed any Resolver & Sendable crosses into a detached task")
    func sendableExistential() async {
        let container = Container()
        container.register(Clock.self) { _ in SystemClock() }.inObjectScope(.container)

        let resolver: any Resolver & Sendable = container.synchronize()
        let clock = await Task.detached { resolver.resolve(Clock.self) }.value

        #expect(clock is SystemClock)
        #expect((clock as? SystemClock) === (container.resolve(Clock.self) as? SystemClock))
    }

    @Test("A view sees registrations made after it was created, also while other threads resolve")
    func viewSeesLaterRegistrations() async {
        let container = Container()
        let resolver = container.synchronize()
        #expect(resolver.resolve(Clock.self) == nil)

        container.register(Clock.self) { _ in SystemClock() }
        #expect(resolver.resolve(Clock.self) is SystemClock)

        // Registering takes the lock that every resolve of the view takes: a concurrent resolve sees
        // either the old registration or the new one, never a half-made table.
        let stopwatchFound = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<500 where resolver.resolve(Stopwatch.self) != nil {
                        stopwatchFound.increment()
                    }
                }
            }
            // The container stays in this task; only the view crosses into the others.
            for _ in 0..<50 {
                container.register(Stopwatch.self) { r in Stopwatch(clock: try r.resolveThrows(Clock.self)) }
            }
        }
        #expect(resolver.resolve(Stopwatch.self) != nil)
    }

    @Test("withContainer registers a batch that a thread resolving meanwhile sees whole")
    func withContainerRegistersWhole() {
        let container = Container()
        let seen = Box<Clock?>(nil)
        let resolved = DispatchSemaphore(value: 0)
        // While `register` runs inside the block, another thread resolves: it waits for the block to end.
        let view = container.synchronize()
        container.addBehavior(
            RegistrationHook {
                Thread {
                    seen.mutate { $0 = view.resolve(Clock.self) }
                    resolved.signal()
                }.start()
            }
        )
        let resolver = container.synchronize()
        resolver.withContainer { c in
            c.register(Clock.self) { _ in SystemClock() }
                .inObjectScope(.container)
        }
        #expect(resolved.wait(timeout: .now() + 60) == .success)
        let clock = resolver.resolve(Clock.self)
        #expect(seen.value != nil)
        #expect(seen.value as AnyObject === clock as AnyObject, "both got the one container-scoped clock")
    }

    @Test("A factory resolves re-entrantly through the view it is handed, in parent and child")
    func reentrantResolves() async {
        let parent = Container()
        parent.register(Clock.self) { _ in SystemClock() }.inObjectScope(.container)
        let child = Container(parent: parent)
        child.register(Stopwatch.self) { r in Stopwatch(clock: try r.resolveThrows(Clock.self)) }
        let parentView = parent.synchronize()
        let childView = child.synchronize()

        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                group.addTask {
                    index.isMultiple(of: 2)
                        ? childView.resolve(Stopwatch.self) != nil
                        : parentView.resolve(Clock.self) != nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
    }
}

extension ThreadSafetyArticleTests {
    protocol Clock: Sendable {}

    final class SystemClock: Clock {}

    final class Stopwatch: Sendable {
        let clock: any Clock
        init(clock: any Clock) { self.clock = clock }
    }
}


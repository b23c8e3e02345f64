import Foundation
import Keystone
import Testing

// MARK: - Fixtures

private protocol Greeter {
    var greeting: String { get }
}

private final class English: Greeter {
    let greeting = "Hello"
    init() { FrontJournal.note("English.init") }
}

private final class French: Greeter {
    let greeting = "Bonjour"
}

private final class Translator {
    init() { FrontJournal.note("Translator.init") }
}

private final class Reception {
    @Inject var greeter: Greeter
    @Inject("formal") var formalGreeter: Greeter
    @OptionalInject var translator: Translator?
    @LazyInject var lazyGreeter: Greeter
}

private final class Lobby {
    @Inject var translator: Translator
}

private final class UniqueVisitor {
    @Inject(scope: .unique) var translator: Translator
    @OptionalInject(scope: .unique) var optionalTranslator: Translator?
    @LazyInject(scope: .unique) var lazyTranslator: Translator
}

private final class OnlyOptional {
    @OptionalInject var greeter: Greeter?
    @OptionalInject("formal") var formalGreeter: Greeter?
}

private final class LazyOnly {
    @LazyInject var translator: Translator
    @LazyInject("formal") var formalGreeter: Greeter
}

/// A value whose instances tell which test's container made them.
private final class Badge: Sendable {
    let owner: Int
    init(owner: Int) { self.owner = owner }
}

private final class BadgeHolder {
    @Inject var badge: Badge
    @LazyInject var lazyBadge: Badge
}

private final class LateReader {
    @LazyInject var translator: Translator
}

/// A Sendable value with injected Sendable services: the wrappers are Sendable when their service is.
private struct Postcard: Sendable {
    @Inject var badge: Badge
    @OptionalInject var optionalBadge: Badge?
    @LazyInject var lazyBadge: Badge
}

private final class Unwired {
    @Inject("missing") var greeter: Greeter
}

// MARK: - Tests

@Suite("Property wrappers: when and from where they resolve", .hangLimit)
struct InjectTests {
    @Test("@Inject resolves when its owner is created; @LazyInject when first read")
    func injectResolvesAtInitLazyInjectOnFirstRead() {
        withRegistryTestbed { journal in
            DependencyRegistry.register { () -> Greeter in English() }
            DependencyRegistry.register { () -> Translator in Translator() }
            Container.current.register(Greeter.self, name: "formal") { _ in French() }

            let lazyOnly = LazyOnly()
            #expect(journal.count("Translator.init") == 0)

            _ = Lobby()
            #expect(journal.count("Translator.init") == 1)

            #expect(lazyOnly.formalGreeter.greeting == "Bonjour")
            #expect(lazyOnly.translator === lazyOnly.translator)
        }
    }

    @Test("@Inject of a Registry service with the .lazy lifecycle resolves on first read")
    func injectOfLazyServiceDefers() {
        withRegistryTestbed(onStartup: { Registry.lazy { Translator() } }) { journal in
            Registry.performStartup()

            let lobby = Lobby()
            #expect(journal.count("Translator.init") == 0)

            let first = lobby.translator
            #expect(journal.count("Translator.init") == 1)
            #expect(lobby.translator === first)
            #expect(Lobby().translator === first)
        }
    }

    @Test("@Inject with a service id resolves that registration; @OptionalInject is nil when unregistered")
    func serviceIdsAndOptionals() {
        withRegistryTestbed { journal in
            DependencyRegistry.register { () -> Greeter in English() }
            Container.current.register(Greeter.self, name: "formal") { _ in French() }

            let reception = Reception()

            #expect(reception.greeter.greeting == "Hello")
            #expect(reception.formalGreeter.greeting == "Bonjour")
            #expect(reception.translator == nil)
            #expect(journal.count("English.init") == 1)
            #expect(reception.lazyGreeter.greeting == "Hello")
            #expect(journal.count("English.init") == 1)
        }
    }

    @Test("@OptionalInject resolves a registered service, by id too")
    func optionalInjectResolvesWhenRegistered() {
        withRegistryTestbed { _ in
            let before = OnlyOptional()
            Registry.register(Greeter.self, serviceId: "formal") { French() }
            let after = OnlyOptional()

            #expect(before.greeter == nil)
            #expect(before.formalGreeter == nil)
            #expect(after.greeter == nil)
            #expect(after.formalGreeter?.greeting == "Bonjour")
        }
    }

    @Test("The wrappers with scope .unique get a new instance for every owner")
    func uniqueScopeGivesNewInstances() {
        withRegistryTestbed { journal in
            DependencyRegistry.register { Translator() }
            let shared: Translator = DependencyRegistry.resolve()

            let one = UniqueVisitor()
            let two = UniqueVisitor()

            #expect(one.translator !== two.translator)
            #expect(one.translator !== shared)
            #expect(one.optionalTranslator !== one.translator)
            #expect(one.optionalTranslator != nil)
            #expect(one.lazyTranslator === one.lazyTranslator)
            #expect(one.lazyTranslator !== two.lazyTranslator)
            #expect(journal.count("Translator.init") == 7)
        }
    }

    @Test("A wrapper resolves from the container that was current when its owner was created")
    func wrapperKeepsItsContainer() {
        // A wrapper holds its container weakly (a service the container keeps may own it), so the
        // container is kept alive here for as long as the reader may resolve from it.
        let home = Container()
        let reader = Container.withCurrent(home) {
            DependencyRegistry.register { Translator() }
            return LateReader()
        }
        let other = Container()
        let translator = Container.withCurrent(other) { reader.translator }

        #expect(other.registeredCount() == 0)
        #expect(translator === Container.withCurrent(home) { DependencyRegistry.resolve() as Translator })
        #expect(reader.translator === translator)
        withExtendedLifetime(home) {}
    }

    @Test("A Sendable owner of wrappers crosses into another task and still resolves from its container")
    func sendableOwnerCrossesTasks() async {
        let home = Container()
        let postcard = Container.withCurrent(home) {
            DependencyRegistry.register { Badge(owner: 7) }
            return Postcard()
        }
        let owners = await Task.detached {
            [postcard.badge.owner, postcard.optionalBadge?.owner, postcard.lazyBadge.owner]
        }.value

        #expect(owners == [7, 7, 7])
        withExtendedLifetime(home) {}
    }

    @Test("Wrappers on many threads of one container share one .global instance", .tags(.concurrency))
    func wrappersUnderContention() async {
        await Container.withCurrent(Container()) {
            DependencyRegistry.register { Badge(owner: 0) }
            let badges = await withTaskGroup(of: ObjectIdentifier.self) { group in
                for _ in 0..<200 {
                    group.addTask { ObjectIdentifier(BadgeHolder().badge) }
                }
                return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
            }
            #expect(badges.count == 1)
        }
    }

    @Test("Parallel tasks with their own containers never see each other's instances", .tags(.concurrency))
    func parallelContainersAreIsolated() async {
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for owner in 0..<64 {
                group.addTask {
                    Container.withCurrent(Container()) {
                        if owner.isMultiple(of: 2) {
                            DependencyRegistry.register { Badge(owner: owner) }
                        } else {
                            let plan = RegistryPlan(
                                imports: [],
                                startup: { Registry.eager { Badge(owner: owner) } },
                                shutdown: {}
                            )
                            RegistryPlan.$current.withValue(plan) { Registry.performStartup() }
                        }
                        var wrong = 0
                        for _ in 0..<50 {
                            let holder = BadgeHolder()
                            let direct: Badge = DependencyRegistry.resolve()
                            for badge in [holder.badge, holder.lazyBadge, direct] where badge.owner != owner {
                                wrong += 1
                            }
                            if holder.badge !== direct {
                                wrong += 1
                            }
                        }
                        return wrong
                    }
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test("@Inject of an unregistered service stops, naming the service, the id and the registered ids")
    func injectOfUnregisteredServiceStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Container.withCurrent(Container()) {
                Container.current.register(Greeter.self, name: "casual") { _ in English() }
                _ = Unwired()
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("@Inject could not resolve Greeter (service id \"missing\")"))
        #expect(message.contains("No registration for Greeter named \"missing\""))
        #expect(message.contains("Registered for Greeter: Greeter named \"casual\""))
        #expect(message.contains("@OptionalInject"))
    }
}

extension ProcessWideContainerTests {
    /// The process-wide default container, which `DIActor.shared` fronts too: the suites that touch it are
    /// nested in `ProcessWideContainerTests`, one test at a time, and this one registers a service type no
    /// other test registers.
    @Suite("The default container", .serialized, .hangLimit)
    struct DefaultContainerTests {
        private final class DefaultOnly: Sendable {}

        @Test("Outside withCurrent the facades use one process-wide container, from every task")
        func facadesShareTheDefaultContainer() async {
            let container = Container.current
            #expect(Container.current === container)
            #expect(Container.withCurrent(Container()) { Container.current } !== container)

            DependencyRegistry.register { DefaultOnly() }
            defer { DependencyRegistry.reset() }

            let fromTasks = await withTaskGroup(of: ObjectIdentifier.self) { group in
                for _ in 0..<16 {
                    group.addTask { ObjectIdentifier(DependencyRegistry.resolve() as DefaultOnly) }
                }
                return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
            }
            let fromThread = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(returning: ObjectIdentifier(DependencyRegistry.resolve() as DefaultOnly))
                }
            }

            #expect(fromTasks == [fromThread])
            #expect(Container.withCurrent(Container()) { DependencyRegistry.optional() as DefaultOnly? } == nil)
        }
    }
}

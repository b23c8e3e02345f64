import Foundation
import Keystone
import Testing

// MARK: - Fixtures

private protocol Ledger: AnyObject {
    var bank: String { get }
}

private final class Savings: Ledger {
    let bank = "savings"
    init() { FrontJournal.note("Savings.init") }
}

private final class Checking: Ledger {
    let bank = "checking"
    init() { FrontJournal.note("Checking.init") }
}

private struct Receipt {
    let serial: Int
    init() {
        FrontJournal.note("Receipt.init")
        serial = FrontJournal.current?.count("Receipt.init") ?? 0
    }
}

private final class Teller: PostConstruct {
    init() { FrontJournal.note("Teller.init") }
    func postConstruct() { FrontJournal.note("Teller.postConstruct") }
}

private final class Vault {
    let ledger: Ledger
    init(ledger: Ledger = DependencyRegistry.resolve()) {
        self.ledger = ledger
    }
}

private final class Branch {
    @Inject var ledger: Ledger
    @OptionalInject var optionalLedger: Ledger?
}

private final class Clerk {}

// MARK: - Tests

@Suite("DependencyRegistry: scopes, values, optionals and replacement", .hangLimit)
struct DependencyRegistryTests {
    @Test(".global shares one instance of a class, created on first resolve")
    func globalSharesAClassInstance() {
        withRegistryTestbed { journal in
            DependencyRegistry.register { () -> Ledger in Savings() }
            #expect(journal.count("Savings.init") == 0)

            let one: Ledger = DependencyRegistry.resolve()
            let two: Ledger = DependencyRegistry.resolve(scope: .global)
            let three: Ledger? = DependencyRegistry.optional()

            #expect(one === two)
            #expect(one === three)
            #expect(journal.count("Savings.init") == 1)
        }
    }

    @Test(".unique makes a new instance on every resolve and keeps none")
    func uniqueMakesNewInstances() {
        withRegistryTestbed { journal in
            DependencyRegistry.register { () -> Ledger in Savings() }
            let shared: Ledger = DependencyRegistry.resolve()

            let one: Ledger = DependencyRegistry.resolve(scope: .unique)
            let two: Ledger = DependencyRegistry.resolve(scope: .unique)
            let three: Ledger? = DependencyRegistry.optional(scope: .unique)

            #expect(one !== two)
            #expect(one !== shared)
            #expect(three != nil)
            #expect(three !== shared && three !== one && three !== two)
            #expect(journal.count("Savings.init") == 4)
            #expect(DependencyRegistry.resolve() as Ledger === shared)
        }
    }

    @Test("A value type is created anew on every resolve, whatever the scope")
    func valueTypesAreAlwaysNew() {
        withRegistryTestbed { journal in
            DependencyRegistry.register { Receipt() }

            let serials = [
                (DependencyRegistry.resolve() as Receipt).serial,
                (DependencyRegistry.resolve(scope: .global) as Receipt).serial,
                (DependencyRegistry.resolve(scope: .unique) as Receipt).serial,
                (DependencyRegistry.optional() as Receipt?)?.serial,
            ]

            #expect(serials == [1, 2, 3, 4])
            #expect(journal.count("Receipt.init") == 4)
        }
    }

    @Test("Registering an optional type resolves to nil everywhere, without calling the instantiator")
    func optionalRegistrationResolvesToNil() {
        withRegistryTestbed { journal in
            DependencyRegistry.register { () -> Ledger? in Savings() }

            let resolved: Ledger? = DependencyRegistry.resolve()
            let optional: Ledger? = DependencyRegistry.optional()
            let unique: Ledger? = DependencyRegistry.resolve(scope: .unique)
            final class Holder {
                @Inject var injected: Ledger?
                @OptionalInject var optionalInjected: Ledger?
            }
            let holder = Holder()

            #expect(resolved == nil)
            #expect(optional == nil)
            #expect(unique == nil)
            #expect(holder.injected == nil)
            #expect(holder.optionalInjected == nil)
            #expect(journal.count("Savings.init") == 0)
        }
    }

    @Test("Registering again replaces the instantiator and drops the shared instance")
    func registeringAgainReplaces() {
        withRegistryTestbed { _ in
            DependencyRegistry.register { () -> Ledger in Savings() }
            let before: Ledger = DependencyRegistry.resolve()

            DependencyRegistry.register { () -> Ledger in Checking() }
            let after: Ledger = DependencyRegistry.resolve()
            let unique: Ledger = DependencyRegistry.resolve(scope: .unique)

            #expect(before.bank == "savings")
            #expect(after.bank == "checking")
            #expect(unique.bank == "checking")
            #expect(after === DependencyRegistry.resolve() as Ledger)
            #expect(Container.current.registeredCount() == 1)
        }
    }

    @Test("optional() is nil for an unregistered type, and for a type registered only as a subclass")
    func optionalIsNilWhenUnregistered() {
        withRegistryTestbed { _ in
            DependencyRegistry.register { Savings() }

            #expect(DependencyRegistry.optional() as Ledger? == nil)
            #expect(DependencyRegistry.optional(scope: .unique) as Clerk? == nil)
            #expect(DependencyRegistry.optional() as Savings? != nil)
        }
    }

    @Test("An instantiator resolves its dependencies from the same container, default arguments too")
    func instantiatorsResolveDependencies() {
        withRegistryTestbed { _ in
            DependencyRegistry.register { () -> Ledger in Checking() }
            DependencyRegistry.register { Vault() }

            let vault: Vault = DependencyRegistry.resolve()

            #expect(vault.ledger === DependencyRegistry.resolve() as Ledger)
            #expect(Branch().ledger === vault.ledger)
        }
    }

    @Test("PostConstruct runs once per instance the registry creates")
    func postConstructRunsPerInstance() {
        withRegistryTestbed { journal in
            DependencyRegistry.register { Teller() }

            _ = DependencyRegistry.resolve() as Teller
            _ = DependencyRegistry.resolve() as Teller
            #expect(journal.all == ["Teller.init", "Teller.postConstruct"])

            _ = DependencyRegistry.resolve(scope: .unique) as Teller
            #expect(journal.count("Teller.postConstruct") == 2)
        }
    }

    @Test("reset() removes what DependencyRegistry registered, and leaves the rest")
    func resetRemovesItsOwnRegistrations() {
        withRegistryTestbed { _ in
            DependencyRegistry.register { () -> Ledger in Savings() }
            DependencyRegistry.register { Clerk() }
            Registry.register { Teller() }
            Container.current.register(Receipt.self) { _ in Receipt() }

            DependencyRegistry.reset()

            #expect(DependencyRegistry.optional() as Ledger? == nil)
            #expect(DependencyRegistry.optional() as Clerk? == nil)
            #expect(DependencyRegistry.optional() as Teller? != nil)
            #expect(DependencyRegistry.optional() as Receipt? != nil)
        }
    }

    @Test("reset() keeps a registration that replaced one DependencyRegistry made")
    func resetKeepsReplacements() {
        withRegistryTestbed { _ in
            DependencyRegistry.register { () -> Ledger in Savings() }
            Registry.override(Ledger.self) { Checking() }

            DependencyRegistry.reset()

            #expect((DependencyRegistry.optional() as Ledger?)?.bank == "checking")
        }
    }

    @Test(
        "Many tasks registering and resolving in one container see one shared instance per registration",
        .tags(.concurrency)
    )
    func concurrentUseOfOneContainer() async {
        await Container.withCurrent(Container()) {
            DependencyRegistry.register { () -> Ledger in Savings() }
            let identities = await withTaskGroup(of: ObjectIdentifier.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        if index.isMultiple(of: 10) {
                            DependencyRegistry.register { Clerk() }
                        }
                        let clerk: Clerk? = DependencyRegistry.optional(scope: .unique)
                        _ = clerk
                        return ObjectIdentifier(DependencyRegistry.resolve() as Ledger)
                    }
                }
                return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
            }
            #expect(identities.count == 1)
        }
    }

    @Test("resolve() of an unregistered type stops with a message naming it")
    func resolvingUnregisteredStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Container.withCurrent(Container()) {
                let _: Ledger = DependencyRegistry.resolve()
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("DependencyRegistry.resolve() could not resolve Ledger."))
        #expect(message.contains("DependencyRegistry.register { ... }"))
    }
}

import Foundation
import Testing

@testable import Keystone

// Services of the misuse catalogue; Dog, Cat, Horse and the rest come from Support/Fixtures.swift.
private final class Clock {}
private final class Selfish {}
private final class Chicken {
    let egg: Egg?
    init(egg: Egg?) { self.egg = egg }
}
private final class Egg {
    let chicken: Chicken?
    init(chicken: Chicken?) { self.chicken = chicken }
}
private final class Account {
    let owner: String
    init(owner: String) { self.owner = owner }
}
private final class Wallet: Sendable {}
private struct Broken: Error, CustomStringConvertible {
    var description: String { "the disk is full" }
}

/// The key `serviceType` is registered or resolved under, with optional `name` and argument types.
private func key(_ serviceType: Any.Type, _ name: String? = nil, _ arguments: Any.Type = Void.self) -> ServiceKey {
    ServiceKey(serviceType: serviceType, name: name, argumentsType: arguments)
}

/// `notRegistered` for a top-level resolve of `asked`, with these near misses.
private func missing(_ asked: ServiceKey, nearMisses: [ServiceKey] = []) -> DIError {
    .notRegistered(key: asked, path: [], candidates: nearMisses)
}

extension Reliability {
    /// Each misuse a user can make, with the exact error or behaviour Keystone answers with. Nothing
    /// here crashes except where the API documents a trap, and those are checked in a child process.
    @Suite("Misuse catalogue")
    struct MisuseCatalogueTests {
        // MARK: - Keys that do not match

        @Test("Resolving an unregistered type fails with notRegistered naming it, in every style and through a view")
        func unregisteredType() {
            let container = Container()
            let expected = missing(key(Dog.self))
            #expect(container.resolve(Dog.self) == nil)
            #expect(throws: expected) { try container.resolveThrows(Dog.self) }
            #expect(container.resolveResult(Dog.self).caughtError == expected)
            #expect(throws: expected) { try container.synchronize().resolveThrows(Dog.self) }
            #expect(expected.description.contains("No registration for Dog."))
        }

        @Test("A wrong name fails with notRegistered, listing the names that are registered")
        func wrongName() {
            let container = Container()
            container.register(Dog.self, name: "rex") { _ in Dog(name: "Rex") }
            container.register(Dog.self, name: "fido") { _ in Dog(name: "Fido") }
            let nearMisses = [key(Dog.self, "rex"), key(Dog.self, "fido")]
            #expect(throws: missing(key(Dog.self, "max"), nearMisses: nearMisses)) {
                try container.resolveThrows(Dog.self, name: "max")
            }
            #expect(throws: missing(key(Dog.self), nearMisses: nearMisses)) {
                try container.resolveThrows(Dog.self)
            }
            #expect(throws: missing(key(Dog.self, "Rex"), nearMisses: nearMisses), "names are case-sensitive") {
                try container.resolveThrows(Dog.self, name: "Rex")
            }
        }

        @Test("A wrong argument count fails with notRegistered for the argument types passed")
        func wrongArgumentCount() {
            let container = Container()
            container.register(Animal.self) { (_, name: String) in Horse(name: name) }
            let registered = [key(Animal.self, nil, String.self)]
            #expect(throws: missing(key(Animal.self), nearMisses: registered)) {
                try container.resolveThrows(Animal.self)
            }
            #expect(throws: missing(key(Animal.self, nil, (String, Bool).self), nearMisses: registered)) {
                try container.resolveThrows(Animal.self, arguments: "Spirit", true)
            }
            #expect(container.resolve(Animal.self, argument: "Spirit")?.name == "Spirit")
        }

        @Test("Wrong argument types fail: Int for String, NSString, String?, Substring, a subclass for its protocol")
        func wrongArgumentTypes() {
            let container = Container()
            container.register(Animal.self) { (_, name: String) in Horse(name: name) }
            container.register(Person.self) { (_, pet: Animal) in PetOwner(name: "Ada", pet: pet) }
            let animals = [key(Animal.self, nil, String.self)]
            let persons = [key(Person.self, nil, Animal.self)]

            #expect(throws: missing(key(Animal.self, nil, Int.self), nearMisses: animals)) {
                try container.resolveThrows(Animal.self, argument: 42)
            }
            #expect(throws: missing(key(Animal.self, nil, NSString.self), nearMisses: animals)) {
                try container.resolveThrows(Animal.self, argument: NSString(string: "Spirit"))
            }
            let optionalName: String? = "Spirit"
            #expect(throws: missing(key(Animal.self, nil, String?.self), nearMisses: animals)) {
                try container.resolveThrows(Animal.self, argument: optionalName)
            }
            #expect(throws: missing(key(Animal.self, nil, Substring.self), nearMisses: animals)) {
                try container.resolveThrows(Animal.self, argument: "Spirit".dropLast(0))
            }
            // The argument's static type counts: a `Dog` is not an `Animal` argument until it is typed so.
            let dog = Dog(name: "Rex")
            #expect(throws: missing(key(Person.self, nil, Dog.self), nearMisses: persons)) {
                try container.resolveThrows(Person.self, argument: dog)
            }
            #expect((container.resolve(Person.self, argument: dog as Animal) as? PetOwner)?.pet.name == "Rex")
        }

        // MARK: - Optional service types

        @Test("Registering Dog? does not register Dog: resolving Dog fails, naming no near miss")
        func optionalRegistrationIsNotTheWrappedType() {
            let container = Container()
            container.register(Dog?.self) { _ in Dog(name: "Maybe") }
            // `Optional<Dog>` is another service type, so it is not among Dog's near misses.
            #expect(throws: missing(key(Dog.self))) { try container.resolveThrows(Dog.self) }
            // Resolving `Dog?` finds the registration itself: `resolve` adds its own level of Optional.
            let resolved: Dog?? = container.resolve(Dog?.self)
            #expect(resolved??.name == "Maybe")
            #expect((try? container.resolveThrows(Dog?.self))??.name == "Maybe")
        }

        @Test("A Dog? factory that returns nil resolves to a present nil, not to a failure")
        func optionalRegistrationReturningNil() throws {
            let container = Container()
            container.register(Dog?.self) { _ in nil }
            let resolved: Dog?? = container.resolve(Dog?.self)
            #expect(resolved != nil)
            #expect(resolved! == nil)
            let thrown: Dog? = try container.resolveThrows(Dog?.self)
            #expect(thrown == nil)
        }

        @Test("Resolving Dog? when Dog is registered returns the Dog; when nothing is, nil without failing")
        func optionalResolveOfPlainRegistration() throws {
            let container = Container()
            #expect(try container.resolveThrows(Dog?.self) == nil, "asked as optional: missing is an answer")
            container.register(Dog.self, name: "rex") { _ in Dog(name: "Rex") }
            #expect(try container.resolveThrows(Dog?.self) == nil, "another name does not count")
            container.register(Dog.self) { _ in Dog(name: "Fido") }
            #expect(try container.resolveThrows(Dog?.self)?.name == "Fido")
            #expect(try container.resolveThrows(Dog?.self, name: "rex")?.name == "Rex")
        }

        @Test("Resolving Dog? still fails when Dog is registered but cannot be made")
        func optionalResolveKeepsRealFailures() {
            let container = Container()
            container.register(Dog.self) { r in Dog(name: try r.resolveThrows(String.self, name: "dog name")) }
            #expect(
                throws: DIError.notRegistered(key: key(String.self, "dog name"), path: [key(Dog.self)], candidates: [])
            ) {
                try container.resolveThrows(Dog?.self)
            }
        }

        // MARK: - Lazy and Provider past their container

        @Test("Lazy.get() and Provider.get() throw containerDeallocated once the container is gone")
        func deferredResolutionAfterDeallocation() throws {
            var container: Container? = Container()
            container!.register(Dog.self) { _ in Dog(name: "Rex") }
            let lazy = try #require(container!.resolve(Lazy<Dog>.self))
            let provider = try #require(container!.resolve(Provider<Dog>.self, name: nil))
            weak let gone = container
            container = nil
            #expect(gone == nil)
            #expect(throws: DIError.containerDeallocated(key: key(Dog.self))) { try lazy.get() }
            #expect(throws: DIError.containerDeallocated(key: key(Dog.self))) { try provider.get() }
        }

        @Test("A Lazy whose first get() came before the container went keeps its instance")
        func resolvedLazyOutlivesItsContainer() throws {
            var container: Container? = Container()
            container!.register(Dog.self) { _ in Dog(name: "Rex") }
            let lazy = try #require(container!.resolve(Lazy<Dog>.self))
            let dog = try lazy.get()
            container = nil
            #expect(try lazy.get() === dog)
        }

        @Test("Lazy.instance stops the program once the container is gone, as documented")
        func lazyInstanceTrapsAfterDeallocation() async {
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                var container: Container? = Container()
                container!.register(Dog.self) { _ in Dog(name: "Rex") }
                let lazy = container!.resolve(Lazy<Dog>.self)!
                container = nil
                _ = lazy.instance
            }.map { result in
                let message = String(decoding: result.standardErrorContent, as: UTF8.self)
                #expect(message.contains("Lazy<Dog>.instance could not be resolved"))
                #expect(message.contains("after its container was deallocated"))
            }
        }

        @Test("Provider.instance stops the program once the container is gone, as documented")
        func providerInstanceTrapsAfterDeallocation() async {
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                var container: Container? = Container()
                container!.register(Dog.self) { _ in Dog(name: "Rex") }
                let provider = container!.resolve(Provider<Dog>.self)!
                container = nil
                _ = provider.instance
            }.map { result in
                let message = String(decoding: result.standardErrorContent, as: UTF8.self)
                #expect(message.contains("Provider<Dog>.instance could not be resolved"))
            }
        }

        @Test("A Provider whose registration was removed throws notRegistered from get()")
        func providerAfterRemoveAll() throws {
            let container = Container()
            container.register(Dog.self) { _ in Dog(name: "Rex") }
            let provider = try #require(container.resolve(Provider<Dog>.self))
            container.removeAll()
            #expect(throws: missing(key(Dog.self))) { try provider.get() }
        }

        @Test("A Lazy not yet resolved follows a re-registration of its key")
        func lazyBindsLate() throws {
            let container = Container()
            container.register(Dog.self) { _ in Dog(name: "Old") }
            let lazy = try #require(container.resolve(Lazy<Dog>.self))
            container.register(Dog.self) { _ in Dog(name: "New") }
            #expect(try lazy.get().name == "New")
        }

        // MARK: - Factories that do surprising things

        @Test("A factory may register: the registration works at once and stays for later resolves")
        func registeringInsideAFactory() throws {
            let container = Container()
            container.register(Cat.self) { r in
                container.register(Dog.self) { _ in Dog(name: "Late") }
                // Visible to the rest of this very resolve...
                return Cat(name: try r.resolveThrows(Dog.self).name)
            }
            #expect(try container.resolveThrows(Cat.self).name == "Late")
            // ...and to every later one.
            #expect(try container.resolveThrows(Dog.self).name == "Late")
        }

        @Test("A factory may register through a synchronized view's container without deadlock")
        func registeringInsideASynchronizedFactory() throws {
            let container = Container()
            let view = container.synchronize()
            container.register(Cat.self) { r in
                container.register(Dog.self) { _ in Dog(name: "Late") }.inObjectScope(.container)
                return Cat(name: try r.resolveThrows(Dog.self).name)
            }
            #expect(try view.resolveThrows(Cat.self).name == "Late")
            #expect(try view.resolveThrows(Dog.self) === view.resolveThrows(Dog.self))
        }

        @Test("A factory that re-registers its own key returns its instance; later resolves use the new factory")
        func factoryReplacingItsOwnRegistration() throws {
            let container = Container()
            let oldRuns = Counter()
            let newRuns = Counter()
            container.register(Account.self) { _ in
                oldRuns.increment()
                container.register(Account.self) { _ in
                    newRuns.increment()
                    return Account(owner: "new")
                }.inObjectScope(.container)
                return Account(owner: "old")
            }.inObjectScope(.container)
            #expect(try container.resolveThrows(Account.self).owner == "old")
            let second = try container.resolveThrows(Account.self)
            #expect(second.owner == "new")
            #expect(try container.resolveThrows(Account.self) === second)
            #expect(oldRuns.count == 1)
            #expect(newRuns.count == 1)
            #expect(container.registeredCount() == 1)
        }

        @Test("A factory that resolves itself fails with the cycle X -> X, never overflowing the stack")
        func factoryResolvingItself() {
            let container = Container()
            let runs = Counter()
            container.register(Selfish.self) { r in
                runs.increment()
                _ = try r.resolveThrows(Selfish.self)
                return Selfish()
            }
            let cycle = DIError.circularDependency(path: [key(Selfish.self), key(Selfish.self)])
            #expect(throws: cycle) { try container.resolveThrows(Selfish.self) }
            #expect(container.resolveResult(Selfish.self).caughtError == cycle)
            #expect(container.resolve(Selfish.self) == nil)
            #expect(runs.count == 3, "the factory runs once per attempt; the inner resolve fails before running it")
            #expect(cycle.description.contains("Selfish -> Selfish"))
        }

        @Test("A self-resolving factory that swallows the failure still fails the whole call, and caches nothing")
        func factoryToleratingItsOwnCycle() {
            let container = Container()
            let runs = Counter()
            container.register(Selfish.self) { r in
                runs.increment()
                _ = r.resolve(Selfish.self)  // nil, ignored
                return Selfish()
            }.inObjectScope(.container)
            let cycle = DIError.circularDependency(path: [key(Selfish.self), key(Selfish.self)])
            #expect(throws: cycle) { try container.resolveThrows(Selfish.self) }
            #expect(throws: cycle) { try container.resolveThrows(Selfish.self) }
            #expect(runs.count == 2, "no half-made instance was kept")
        }

        @Test("Two factories that need each other fail with the path A -> B -> A")
        func twoFactoryCycle() {
            let container = Container()
            container.register(Chicken.self) { r in Chicken(egg: try r.resolveThrows(Egg.self)) }
            container.register(Egg.self) { r in Egg(chicken: try r.resolveThrows(Chicken.self)) }
            #expect(throws: DIError.circularDependency(path: [key(Chicken.self), key(Egg.self), key(Chicken.self)])) {
                try container.resolveThrows(Chicken.self)
            }
            #expect(throws: DIError.circularDependency(path: [key(Egg.self), key(Chicken.self), key(Egg.self)])) {
                try container.resolveThrows(Egg.self)
            }
        }

        @Test("A throwing factory fails with factoryFailed, naming the key and keeping the error")
        func throwingFactory() {
            let container = Container()
            container.register(Clock.self) { _ in throw Broken() }
            container.register(Account.self) { r in
                _ = try r.resolveThrows(Clock.self)
                return Account(owner: "Ada")
            }
            #expect(throws: DIError.factoryFailed(key: key(Clock.self), path: [], underlying: Broken())) {
                try container.resolveThrows(Clock.self)
            }
            #expect(
                throws: DIError.factoryFailed(key: key(Clock.self), path: [key(Account.self)], underlying: Broken())
            ) {
                try container.resolveThrows(Account.self)
            }
            #expect(container.resolve(Clock.self) == nil)
        }

        @Test("Forwarding to a type the instance is not fails with typeMismatch on resolve")
        func forwardingToTheWrongType() {
            let container = Container()
            container.register(Dog.self) { _ in Dog(name: "Rex") }.implements(Person.self)
            #expect(throws: DIError.typeMismatch(key: key(Person.self), actualType: Dog.self)) {
                try container.resolveThrows(Person.self)
            }
            #expect(container.resolve(Dog.self)?.name == "Rex", "the registration itself is unharmed")
        }

        @Test("A .container registration with arguments keeps the first instance, whatever later arguments say")
        func containerScopeIgnoresLaterArguments() throws {
            let container = Container()
            container.register(Account.self) { (_, owner: String) in Account(owner: owner) }.inObjectScope(.container)
            let first = try container.resolveThrows(Account.self, argument: "Ada")
            let second = try container.resolveThrows(Account.self, argument: "Grace")
            #expect(second === first)
            #expect(second.owner == "Ada")
        }

        // MARK: - The fronts

        @Test("Calling a DIActor release handler twice is harmless, and never removes a later registration")
        func releaseHandlerTwice() async {
            let actor = DIActor()
            let release = await actor.register(Wallet.self) { Wallet() }
            await release()
            await release()
            #expect(await actor.resolve(Wallet.self) == nil)
            #expect(await actor.registeredCount() == 0)

            let again = await actor.registerSharedActor(Wallet.self) { Wallet() }
            await release()
            await release()
            #expect(await actor.resolve(Wallet.self) != nil, "the old handler leaves the new registration alone")
            await again()
            await again()
            #expect(await actor.resolve(Wallet.self) == nil)
        }

        @Test("Registry.performStartup() twice warns and starts once; performShutdown() without startup warns")
        func registryLifecycleMisuse() {
            withRegistryTestbed { journal in
                Registry.performShutdown()
                #expect(journal.count("Registry.shutdown") == 0)
                #expect(Self.registryWarnings().count == 1)
                #expect(
                    Self.registryWarnings().last?.contains(
                        "performShutdown() was called while the registry is not started"
                    ) == true
                )

                Registry.performStartup()
                Registry.performStartup()
                #expect(journal.count("Registry.startup") == 1)
                #expect(Self.registryWarnings().count == 2)
                #expect(Self.registryWarnings().last?.contains("while the registry is already started") == true)

                Registry.performShutdown()
                Registry.performShutdown()
                #expect(journal.count("Registry.shutdown") == 1)
                #expect(Self.registryWarnings().count == 3)
            }
        }

        @Test("@Inject of an unregistered service stops the program, naming it, as documented")
        func injectOfUnregisteredTraps() async {
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                struct Screen {
                    @Inject var clock: Clock
                }
                Container.withCurrent(Container()) {
                    _ = Screen()
                }
            }.map { result in
                let message = String(decoding: result.standardErrorContent, as: UTF8.self)
                #expect(message.contains("@Inject could not resolve Clock"))
            }
        }

        /// The warnings the Registry printed for the current container.
        static func registryWarnings() -> [String] {
            FrontContext.current.withState { $0.registry.warnings }
        }
    }
}

extension Result {
    /// The failure, or `nil` on success.
    fileprivate var caughtError: Failure? {
        if case .failure(let error) = self {
            return error
        }
        return nil
    }
}

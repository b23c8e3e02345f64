import Keystone
import KeystoneTesting
import Testing

// MARK: - Fixtures

// Every type here is registered only by the tests of this file, and only inside containers the trait makes:
// the process-wide default container never holds any of them.

/// A value a trait registers.
private struct Greeting: Equatable {
    let text: String
}

/// A value a test case registers, to tell the cases apart.
private struct CaseNumber: Equatable {
    let value: Int
}

/// What a suite's trait registers.
private struct SuiteService {}

/// What the first test of a suite registers itself.
private struct FirstTestService {}

/// What the second test of a suite registers itself.
private struct SecondTestService {}

/// What a test-level trait registers next to its suite's.
private struct TestLevelService {}

/// What a nested suite's trait registers.
private struct NestedSuiteService {}

/// A class that injects a `Greeting` when it is created.
private final class GreetingHolder {
    @Inject var greeting: Greeting
}

/// The identity of the process-wide default container: a detached task does not inherit the container a
/// test binds, so it sees the default one.
private func defaultContainerID() async -> ObjectIdentifier {
    await Task.detached { ObjectIdentifier(Container.current) }.value
}

// MARK: - A test with the trait

@Suite struct ContainerTraitOnATest {
    @Test(.container { c in c.register(Greeting.self) { _ in Greeting(text: "hello") } })
    func theFrontsAndTheWrappersSeeTheRegistration() async throws {
        // Checked first: resolving an unregistered service stops the program.
        try #require(Container.current.hasAnyRegistration(of: Greeting.self))
        let resolved: Greeting = DependencyRegistry.resolve()
        #expect(resolved == Greeting(text: "hello"))
        #expect(Container.current.registeredCount() == 1)
        #expect(Container.current.parent == nil)
        #expect(GreetingHolder().greeting == Greeting(text: "hello"))
        #expect(ObjectIdentifier(Container.current) != (await defaultContainerID()))
    }

    @Test(.container { _ in DependencyRegistry.register { Greeting(text: "through the facade") } })
    func theConfiguringClosureRunsWithTheContainerCurrent() throws {
        try #require(Container.current.hasAnyRegistration(of: Greeting.self))
        let resolved: Greeting = DependencyRegistry.resolve()
        #expect(resolved == Greeting(text: "through the facade"))
        #expect(Container.current.registeredCount() == 1)
    }

    @Test(.container { c in c.register(Greeting.self) { _ in Greeting(text: "inherited") } })
    func childTasksSeeTheContainer() async {
        let testContainer = ObjectIdentifier(Container.current)
        let fromChild = await Task { () -> (ObjectIdentifier, Greeting?) in
            (ObjectIdentifier(Container.current), DependencyRegistry.optional())
        }.value
        #expect(fromChild.0 == testContainer)
        #expect(fromChild.1 == Greeting(text: "inherited"))
    }

    @Test func aTestWithoutTheTraitUsesTheDefaultContainer() async {
        #expect(ObjectIdentifier(Container.current) == (await defaultContainerID()))
        #expect(!Container.current.hasAnyRegistration(of: Greeting.self))
        #expect(!Container.current.hasAnyRegistration(of: CaseNumber.self))
        #expect(!Container.current.hasAnyRegistration(of: SuiteService.self))
        let greeting: Greeting? = DependencyRegistry.optional()
        #expect(greeting == nil)
    }
}

// MARK: - Parameterized tests

@Suite struct ContainerTraitOnAParameterizedTest {
    @Test(
        .container { c in c.register(Greeting.self) { _ in Greeting(text: "every case") } },
        arguments: 0..<8
    )
    func parallelCasesSeeOnlyTheirOwnRegistrations(index: Int) async throws {
        DependencyRegistry.register { CaseNumber(value: index) }
        try await Task.sleep(for: .milliseconds(10))
        #expect(Container.current.registeredCount() == 2)
        for round in 1...4 {
            Container.current.register(CaseNumber.self, name: "round \(round)") { _ in CaseNumber(value: index) }
            // Sleeping lets the other cases run in between, on this thread or another.
            try await Task.sleep(for: .milliseconds(5))
            let number: CaseNumber = DependencyRegistry.resolve()
            #expect(number == CaseNumber(value: index))
            #expect(Container.current.registeredCount() == 2 + round)
        }
        let greeting: Greeting? = DependencyRegistry.optional()
        #expect(greeting == Greeting(text: "every case"))
    }

    @Test(
        .container { c in c.register(Greeting.self) { _ in Greeting(text: "fresh") } },
        .serialized,
        arguments: 1...4
    )
    func eachCaseGetsAFreshContainer(count: Int) {
        // The cases run one after another: a container kept from an earlier case would still hold that
        // case's registrations here.
        #expect(Container.current.registeredCount() == 1)
        #expect(!Container.current.hasAnyRegistration(of: CaseNumber.self))
        for number in 0..<count {
            Container.current.register(CaseNumber.self, name: "\(number)") { _ in CaseNumber(value: number) }
        }
        #expect(Container.current.registeredCount() == 1 + count)
    }
}

// MARK: - A suite with the trait

@Suite(.container { c in c.register(SuiteService.self) { _ in SuiteService() } })
struct ContainerTraitOnASuite {
    // Each test registers a service of its own, waits, then checks that the container holds exactly the
    // suite's registration and its own. Whichever order the two tests run in, sharing a container would
    // show in the later one.

    @Test func theFirstTestHasAContainerOfItsOwn() async throws {
        Container.current.register(FirstTestService.self) { _ in FirstTestService() }
        try await Task.sleep(for: .milliseconds(20))
        #expect(Container.current.hasAnyRegistration(of: SuiteService.self))
        #expect(!Container.current.hasAnyRegistration(of: SecondTestService.self))
        #expect(Container.current.registeredCount() == 2)
        #expect(Container.current.parent == nil)
    }

    @Test func theSecondTestHasAContainerOfItsOwn() async throws {
        Container.current.register(SecondTestService.self) { _ in SecondTestService() }
        try await Task.sleep(for: .milliseconds(20))
        #expect(Container.current.hasAnyRegistration(of: SuiteService.self))
        #expect(!Container.current.hasAnyRegistration(of: FirstTestService.self))
        #expect(Container.current.registeredCount() == 2)
        #expect(Container.current.parent == nil)
    }
}

// MARK: - Suite and test traits together

@Suite(
    .container { c in
        c.register(Greeting.self) { _ in Greeting(text: "suite") }
        c.register(SuiteService.self) { _ in SuiteService() }
    }
)
struct SuiteAndTestTraitsShareOneContainer {
    @Test func aTestWithoutATraitOfItsOwnGetsTheSuitesRegistrations() {
        let greeting: Greeting? = DependencyRegistry.optional()
        #expect(greeting == Greeting(text: "suite"))
        #expect(Container.current.registeredCount() == 2)
    }

    @Test(
        .container { c in
            c.register(Greeting.self) { _ in Greeting(text: "test") }
            c.register(TestLevelService.self) { _ in TestLevelService() }
        }
    )
    func theTestsTraitConfiguresTheSuitesContainerAfterIt() {
        // The test's Greeting replaced the suite's in the same container: three registrations, not four,
        // and no parent holding the suite's.
        let greeting: Greeting? = DependencyRegistry.optional()
        #expect(greeting == Greeting(text: "test"))
        #expect(Container.current.hasAnyRegistration(of: SuiteService.self))
        #expect(Container.current.hasAnyRegistration(of: TestLevelService.self))
        #expect(Container.current.registeredCount() == 3)
        #expect(Container.current.parent == nil)
    }

    @Test(
        .container { c in c.register(Greeting.self) { _ in Greeting(text: "left") } },
        .container { c in c.register(Greeting.self) { _ in Greeting(text: "right") } }
    )
    func twoTraitsOnOneTestApplyLeftToRight() {
        let greeting: Greeting? = DependencyRegistry.optional()
        #expect(greeting == Greeting(text: "right"))
        #expect(Container.current.registeredCount() == 2)
    }

    @Test(
        .container { c in c.register(CaseNumber.self) { _ in CaseNumber(value: -1) } },
        arguments: 0..<3
    )
    func eachCaseGetsTheSuitesAndTheTestsRegistrationsInAFreshContainer(index: Int) async throws {
        Container.current.register(CaseNumber.self, name: "case") { _ in CaseNumber(value: index) }
        try await Task.sleep(for: .milliseconds(10))
        let greeting: Greeting? = DependencyRegistry.optional()
        #expect(greeting == Greeting(text: "suite"))
        #expect(Container.current.registeredCount() == 4)
        #expect(Container.current.synchronize().resolve(CaseNumber.self, name: "case") == CaseNumber(value: index))
    }

    @Suite(
        .container { c in
            c.register(Greeting.self) { _ in Greeting(text: "nested suite") }
            c.register(NestedSuiteService.self) { _ in NestedSuiteService() }
        }
    )
    struct NestedSuite {
        @Test func theOuterSuiteConfiguresFirstThenTheNestedOne() {
            let greeting: Greeting? = DependencyRegistry.optional()
            #expect(greeting == Greeting(text: "nested suite"))
            #expect(Container.current.hasAnyRegistration(of: SuiteService.self))
            #expect(Container.current.hasAnyRegistration(of: NestedSuiteService.self))
            #expect(Container.current.registeredCount() == 3)
        }

        @Test(.container { c in c.register(Greeting.self) { _ in Greeting(text: "innermost") } })
        func theTestConfiguresLast() {
            let greeting: Greeting? = DependencyRegistry.optional()
            #expect(greeting == Greeting(text: "innermost"))
            #expect(Container.current.registeredCount() == 3)
        }
    }
}

public import Keystone
public import Testing

/// A test trait that runs each test in a fresh root `Container` of its own, made current with
/// `Container.withCurrent(_:operation:)`, so `Registry`, `DependencyRegistry`, `@Inject`,
/// `@OptionalInject` and `@LazyInject` register into and resolve from it.
///
/// Make one with `.container { ... }`, passing a closure that registers what the test needs:
///
/// ```swift
/// import Keystone
/// import KeystoneTesting
/// import Testing
///
/// @Test(.container { c in c.register(Store.self) { _ in StubStore(items: ["cached"]) } })
/// func theScreenShowsTheStubbedItems() {
///     #expect(FeedScreen().items == ["cached"])
/// }
/// ```
///
/// The rules:
///
/// - **One container per test.** Each test, and each case of a parameterized test, gets a new
///   container, so tests and cases that run in parallel never see one another's registrations.
/// - **On a suite, still one per test.** The trait is recursive: on a `@Suite` it applies to every test
///   in the suite and in its nested suites, and makes a container for each of them, never one shared by
///   the whole suite.
/// - **Outermost first.** When several container traits apply to one test (a suite's and the test's,
///   or two on the same test), they configure the same container, in order from the outermost suite
///   to the test, and left to right on one declaration. A later registration of the same service
///   replaces an earlier one, so the test's own registrations win over its suite's.
///
/// The container is current while the configuring closures run too, so they may register through the
/// fronts (`DependencyRegistry.register { ... }`) as well as on the container they are handed. Child
/// tasks of the test inherit the container; a `Task.detached` does not, and sees the process-wide
/// default container.
public struct ContainerTrait: TestTrait, SuiteTrait, TestScoping {
    /// Registers services on the test's container.
    private let configure: @Sendable (Container) -> Void

    /// Makes a trait that configures each test's container with `configure`.
    fileprivate init(configure: @escaping @Sendable (Container) -> Void) {
        self.configure = configure
    }

    /// Always `true`: a container trait on a suite applies to every test in it, including those of nested
    /// suites, and each of those tests gets a container of its own.
    public var isRecursive: Bool {
        true
    }

    /// The trait itself for a test case, `nil` otherwise.
    ///
    /// A container is made around each test case (a test that is not parameterized has one case), never
    /// around a suite or around all the cases of a parameterized test together, so no two tests or cases
    /// share a container.
    ///
    /// - Parameters:
    ///   - test: The test or suite about to run.
    ///   - testCase: The case of `test` about to run, or `nil` when the scope would cover a whole test or
    ///     suite.
    /// - Returns: This trait when `testCase` is a case to run, `nil` otherwise.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> ContainerTrait? {
        testCase == nil ? nil : self
    }

    /// Runs `function` with the test case's container current, configured by this trait.
    ///
    /// When an outer container trait (a suite's, or one earlier on the same test) has already made the
    /// container for this test case, this trait configures that container and runs `function`. Otherwise
    /// it makes a new root container, makes it current, configures it, and runs `function` inside.
    ///
    /// - Parameters:
    ///   - test: The test that `function` runs.
    ///   - testCase: The case of `test` that `function` runs.
    ///   - function: The test case, with any scopes of inner traits around it.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let current = Container.current
        if let outer = OuterContainer.made, outer.test == test.id, outer.container == ObjectIdentifier(current) {
            configure(current)
            try await function()
            return
        }
        let container = Container()
        let made = OuterContainer(test: test.id, container: ObjectIdentifier(container))
        try await Container.withCurrent(container) {
            configure(container)
            try await OuterContainer.$made.withValue(made) {
                try await function()
            }
        }
    }
}

extension Trait where Self == ContainerTrait {
    /// A trait that runs each test in a fresh root container configured by `configure`, made current so
    /// the fronts and property wrappers of Keystone use it.
    ///
    /// On a test, the test gets the container; on a parameterized test, each case gets one of its own:
    ///
    /// ```swift
    /// @Test(.container { c in c.register(Clock.self) { _ in FixedClock(hour: 9) } })
    /// func greetsInTheMorning() {
    ///     let greeting: Greeting = DependencyRegistry.resolve()
    ///     #expect(greeting.text == "Good morning")
    /// }
    ///
    /// @Test(.container { c in c.register(Store.self) { _ in StubStore() } }, arguments: ["a", "b"])
    /// func savesAnItem(name: String) {
    ///     // A new container for "a" and another for "b".
    /// }
    /// ```
    ///
    /// On a suite, every test in it (and in its nested suites) gets a new container configured by the
    /// closure, never one container for the whole suite. A suite's trait and a test's trait configure
    /// the same container, the outermost first, so the test's registrations replace the suite's:
    ///
    /// ```swift
    /// @Suite(.container { c in c.register(Store.self) { _ in DiskStore() } })
    /// struct FeedTests {
    ///     @Test func readsFromDisk() { ... }                  // DiskStore, in a container of its own
    ///
    ///     @Test(.container { c in c.register(Store.self) { _ in StubStore() } })
    ///     func readsTheStub() { ... }                         // StubStore replaces DiskStore
    /// }
    /// ```
    ///
    /// - Parameter configure: Registers the test's services on the container it is handed. It runs once
    ///   per test case, with that container already current.
    /// - Returns: The trait, for `@Test` or `@Suite`.
    public static func container(_ configure: @escaping @Sendable (Container) -> Void) -> Self {
        ContainerTrait(configure: configure)
    }
}

/// The container the outermost container trait made for the test case running now: the next trait of the
/// same test configures it instead of making another.
private struct OuterContainer: Sendable {
    /// The container made for the running test case, while that case runs.
    @TaskLocal static var made: OuterContainer?

    /// The test the container was made for.
    let test: Test.ID
    /// The container, by identity. It is current for as long as this value is bound, so the identity
    /// cannot be reused by another container meanwhile.
    let container: ObjectIdentifier
}

extension Container {
    /// The container that ``Registry``, ``DependencyRegistry``, the property wrappers and
    /// ``DIActor/shared`` use right now: the one bound by the innermost ``withCurrent(_:operation:)``
    /// around this code, or else the process-wide default container.
    ///
    /// ```swift
    /// DependencyRegistry.register { Clock() as TimeSource }
    /// print(Container.current.registeredCount()) // 1: the default container holds it
    /// ```
    ///
    /// The default container is created on first use and lives as long as the process. Every facade
    /// call reaches it under its hierarchy's recursive lock, so registering into it and resolving from
    /// it is safe from any thread or task.
    ///
    /// > Warning: The container returned is the engine itself, with no lock around it. Registering on it
    /// > is safe (registration takes the lock), but resolve from other threads through
    /// > `Container.current.synchronize()`, never on the container directly.
    public static var current: Container {
        FrontContext.current.container
    }

    /// Makes `container` the current container while `operation` runs: every ``Registry``,
    /// ``DependencyRegistry``, `@Inject`, `@OptionalInject` and `@LazyInject` call inside it, and every
    /// call of ``DIActor/shared``, ``DIActorBridge`` and ``DIActorGlobalAPI``, registers into and
    /// resolves from `container` instead of the process-wide default.
    ///
    /// The binding is task-local: it holds on the thread or task that calls this, and is inherited by
    /// the child tasks `operation` creates, but not by unrelated tasks. That is how tests that run in
    /// parallel each get a graph of their own:
    ///
    /// ```swift
    /// @Test func greetsInFrench() {
    ///     Container.withCurrent(Container()) {
    ///         DependencyRegistry.register { FrenchGreeter() as Greeter }
    ///         #expect(Welcome().text == "Bonjour")
    ///     }
    /// }
    /// ```
    ///
    /// A property wrapper remembers the container that was current when it was initialized, so a
    /// `@LazyInject` read after `operation` returned still resolves from `container`: the wrapper keeps
    /// `container` alive until it has resolved. The one exception is a wrapper initialized while
    /// `container`'s hierarchy is creating an instance (inside a factory), which holds it weakly; see
    /// ``LazyInject``.
    ///
    /// > Warning: Pass a root container made for the purpose. Registry startup state and
    /// > `DependencyRegistry` bookkeeping belong to the container passed here, and a container is
    /// > shared with everyone else who holds it: binding the same container in two parallel tests
    /// > shares their graphs.
    ///
    /// - Parameters:
    ///   - container: The container to register into and resolve from inside `operation`.
    ///   - operation: The code to run with `container` current.
    /// - Returns: What `operation` returns.
    public static func withCurrent<Result>(
        _ container: Container,
        operation: () throws -> Result
    ) rethrows -> Result {
        try FrontContext.$bound.withValue(FrontContext(container), operation: operation)
    }

    /// Makes `container` the current container while the asynchronous `operation` runs, and in the
    /// child tasks it creates.
    ///
    /// ```swift
    /// @Test func loadsTheProfile() async throws {
    ///     try await Container.withCurrent(Container()) {
    ///         DependencyRegistry.register { StubProfileAPI() as ProfileAPI }
    ///         let profile = try await ProfileModel().load()
    ///         #expect(profile.name == "Ada")
    ///     }
    /// }
    /// ```
    ///
    /// > Warning: A task started with `Task.detached` inside `operation` does not inherit the binding
    /// > and sees the default container; a plain `Task { }` and task-group children do inherit it.
    ///
    /// - Parameters:
    ///   - container: The container to register into and resolve from inside `operation`.
    ///   - isolation: The actor `operation` runs on; the caller's, by default.
    ///   - operation: The code to run with `container` current.
    /// - Returns: What `operation` returns.
    public static func withCurrent<Result>(
        _ container: Container,
        isolation: isolated (any Actor)? = #isolation,
        operation: nonisolated(nonsending) () async throws -> Result
    ) async rethrows -> Result {
        // The closure runs in `isolation` (it uses it), and `operation` with it.
        try await FrontContext.$bound.withValue(
            FrontContext(container),
            operation: {
                _ = isolation
                return try await operation()
            },
            isolation: isolation
        )
    }

    /// Configures ``current``, the container ``DIActor/shared``, ``Registry``, ``DependencyRegistry`` and
    /// the property wrappers share: the process-wide default container, or inside
    /// ``withCurrent(_:operation:)`` the container bound there.
    ///
    /// ```swift
    /// await Container.bootstrap { container in
    ///     container.register(Logger.self) { _ in ConsoleLogger() }
    ///         .inObjectScope(.container)
    /// }
    /// let logger = await DIActor.shared.resolve(Logger.self)
    /// ```
    ///
    /// `configure` runs holding the container's lock, as every front's registration does: a thread or
    /// task that resolves from the container meanwhile waits until `configure` returns, and so sees each
    /// registration with its whole configuration (its scope, its `initCompleted` actions), never one
    /// still being set up. Nothing is created here: call ``warmUp()`` on ``current`` afterwards to
    /// create the `.container` instances at once.
    ///
    /// > Warning: Keep `configure` to registering: it must not wait for another thread or task that
    /// > uses the container, which waits for the lock `configure` holds.
    ///
    /// - Parameter configure: Registers the app's services into the container.
    public static func bootstrap(_ configure: @Sendable (Container) -> Void) async {
        let context = FrontContext.current
        context.withLock {
            configure(context.container)
        }
    }
}

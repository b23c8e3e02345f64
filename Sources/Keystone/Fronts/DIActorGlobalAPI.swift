/// Static shortcuts to ``DIActor/shared``, for code that would rather not pass the actor around.
///
/// ```swift
/// await DIActorGlobalAPI.register(Clock.self) { SystemClock() }
/// let clock = await DIActorGlobalAPI.resolve(Clock.self)
/// ```
///
/// Each call does exactly what the ``DIActor`` call of the same name does on ``DIActor/shared``, so it
/// uses ``Container/current``: the process-wide default container, or the container
/// ``Container/withCurrent(_:operation:)`` binds for the calling task.
///
/// > Warning: Outside `withCurrent`, everything registered here is global to the process. Code under
/// > test that should see registrations of its own runs inside `withCurrent`, or is handed a
/// > ``DIActor`` of its own.
public enum DIActorGlobalAPI {
    /// Registers a factory on ``DIActor/shared`` that makes a new instance on every resolve.
    ///
    /// ```swift
    /// let release = await DIActorGlobalAPI.register(Clock.self) { SystemClock() }
    /// await release()
    /// ```
    ///
    /// - Returns: A handler that removes exactly this registration (see
    ///   ``DIActor/register(_:factory:)``).
    ///
    /// > Warning: Each resolve runs the factory again; register a shared instance with
    /// > ``DIActor/registerSharedActor(_:factory:)``.
    @discardableResult
    public static func register<T: Sendable>(
        _ type: T.Type,
        factory: @escaping @Sendable () -> T
    ) async -> @Sendable () async -> Void {
        await DIActor.shared.register(type, factory: factory)
    }

    /// Resolves `type` from ``DIActor/shared``, or returns `nil`.
    ///
    /// ```swift
    /// let clock = await DIActorGlobalAPI.resolve(Clock.self)
    /// ```
    ///
    /// > Warning: `nil` hides why the resolve failed; ``resolveThrows(_:)`` says why.
    public static func resolve<T: Sendable>(_ type: T.Type) async -> T? {
        await DIActor.shared.resolve(type)
    }

    /// Resolves `type` from ``DIActor/shared`` as a `Result`.
    ///
    /// ```swift
    /// if case .failure(let error) = await DIActorGlobalAPI.resolveResult(Clock.self) {
    ///     print(error)
    /// }
    /// ```
    ///
    /// > Warning: A failure usually means a registration is missing; report it rather than ignore it.
    public static func resolveResult<T: Sendable>(_ type: T.Type) async -> Result<T, DIError> {
        await DIActor.shared.resolveResult(type)
    }

    /// Resolves `type` from ``DIActor/shared``, or throws why it cannot.
    ///
    /// ```swift
    /// let clock = try await DIActorGlobalAPI.resolveThrows(Clock.self)
    /// ```
    ///
    /// - Throws: The ``DIError`` that ``DIActor/resolveThrows(_:)`` throws.
    ///
    /// > Warning: Let the error reach a place that reports it: its message says how to fix it.
    public static func resolveThrows<T: Sendable>(_ type: T.Type) async throws(DIError) -> T {
        try await DIActor.shared.resolveThrows(type)
    }

    /// Removes the registration of `type` from ``DIActor/shared``, and its instance.
    ///
    /// ```swift
    /// await DIActorGlobalAPI.release(Clock.self)
    /// ```
    ///
    /// > Warning: It removes whatever is registered for `type` now, even a registration made by
    /// > other code; a release handler removes only its own.
    public static func release<T>(_ type: T.Type) async {
        await DIActor.shared.release(type)
    }

    /// Removes every registration of ``DIActor/shared``, and their instances.
    ///
    /// ```swift
    /// await DIActorGlobalAPI.releaseAll()
    /// ```
    ///
    /// > Warning: Outside ``Container/withCurrent(_:operation:)`` it clears the registrations of the
    /// > whole process.
    public static func releaseAll() async {
        await DIActor.shared.releaseAll()
    }
}

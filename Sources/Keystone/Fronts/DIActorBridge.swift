/// Calls for moving code to ``DIActor`` step by step: `await`-able ones, and synchronous ones for
/// code that cannot `await` yet.
///
/// ```swift
/// // Code already in async contexts:
/// await DIActorBridge.register(Clock.self) { SystemClock() }
/// let clock = await DIActorBridge.resolve(Clock.self)
///
/// // Synchronous code not yet migrated, on any thread:
/// DIActorBridge.registerSync(Logger.self) { ConsoleLogger() }
/// let logger = DIActorBridge.resolveSync(Logger.self)
/// ```
///
/// Every call works on ``DIActor/shared``, so a registration made through one style is resolved
/// through the other. ``DIActor/shared`` fronts ``Container/current`` (the process-wide default
/// container, or the one ``Container/withCurrent(_:operation:)`` binds for the calling task or thread),
/// so the facades (``DependencyRegistry``, ``Registry``, the property wrappers) see the same
/// registrations, and take the same lock: an instantiator that calls ``resolveSync(_:)`` and a
/// `DIActor` factory that uses `@Inject` never wait for each other forever.
///
/// ### The synchronous calls are safe from any thread
///
/// ``registerSync(_:factory:)`` and ``resolveSync(_:)`` do not hop onto the actor. They call the
/// actor's container directly, under the recursive lock that every call of ``DIActor`` takes around the
/// container too. So they may be called from any thread, at the same time as tasks using the actor:
/// - a registration made by ``registerSync(_:factory:)`` is complete when it returns, and every
///   resolve that starts afterwards, synchronous or through the actor, sees it;
/// - a shared instance (``DIActor/registerSharedActor(_:factory:)``) is created once, however the
///   resolves that race for it arrive;
/// - a factory may call ``resolveSync(_:)`` for what it needs: the lock is recursive, so the nested
///   resolve goes ahead on the same thread.
///
/// > Warning: The synchronous calls block the calling thread while another thread's factory runs. Keep
/// > them out of hot paths on the main thread and out of async code, where ``resolve(_:)`` is the call
/// > to use, and move away from them once the callers can `await`.
public enum DIActorBridge {
    /// Registers a factory on ``DIActor/shared`` that makes a new instance on every resolve.
    ///
    /// ```swift
    /// await DIActorBridge.register(Clock.self) { SystemClock() }
    /// ```
    ///
    /// It is ``DIActor/register(_:factory:)`` without the release handler; use
    /// ``DIActor/release(_:)`` to remove it.
    ///
    /// > Warning: Each resolve runs the factory again.
    public static func register<T: Sendable>(
        _ type: T.Type,
        factory: @escaping @Sendable () -> T
    ) async {
        await DIActor.shared.register(type, factory: factory)
    }

    /// Resolves `type` from ``DIActor/shared``, or returns `nil`.
    ///
    /// ```swift
    /// let clock = await DIActorBridge.resolve(Clock.self)
    /// ```
    ///
    /// > Warning: `nil` hides why the resolve failed; ``DIActor/resolveThrows(_:)`` says why.
    public static func resolve<T: Sendable>(_ type: T.Type) async -> T? {
        await DIActor.shared.resolve(type)
    }

    /// Registers, without `await`, a factory on ``DIActor/shared`` that makes a new instance on every
    /// resolve. Transitional: for synchronous code not migrated yet.
    ///
    /// ```swift
    /// final class LegacyStartup {
    ///     func run() {
    ///         DIActorBridge.registerSync(Logger.self) { ConsoleLogger() }
    ///     }
    /// }
    /// ```
    ///
    /// The registration is complete when the call returns. Unlike a plain synchronous factory, this
    /// one must be `@Sendable`, with a `Sendable` result: it runs on the actor or on whichever thread
    /// resolves, and its instances are handed to other tasks.
    ///
    /// > Warning: It blocks the calling thread while a factory runs on another. Prefer
    /// > ``register(_:factory:)`` wherever the caller can `await`.
    public static func registerSync<T: Sendable>(
        _ type: T.Type,
        factory: @escaping @Sendable () -> T
    ) {
        _ = DIActor.shared.add(type, scope: .transient, factory: factory)
    }

    /// Resolves `type` from ``DIActor/shared`` without `await`, or returns `nil`. Transitional: for
    /// synchronous code not migrated yet.
    ///
    /// ```swift
    /// let logger = DIActorBridge.resolveSync(Logger.self)
    /// ```
    ///
    /// It sees every registration made through ``DIActor/shared``, ``DIActorGlobalAPI`` and this type,
    /// and returns the same shared instances they do.
    ///
    /// > Warning: It blocks the calling thread while a factory runs on another. A factory must not
    /// > wait for another thread that calls it (the two would wait for each other); calling it from
    /// > the factory's own thread is fine.
    public static func resolveSync<T: Sendable>(_ type: T.Type) -> T? {
        DIActor.shared.engine.resolveTypedOrNil(type)
    }
}

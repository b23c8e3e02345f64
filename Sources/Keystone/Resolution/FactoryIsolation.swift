/// Where a registration's factory must run, when it cannot run in any synchronous resolve.
@usableFromInline
enum FactoryIsolation: Sendable {
    /// The factory is `async` (`registerAsync`): only `resolveAsync` and `warmUp()` run it.
    case async
    /// The factory is `@MainActor` (`register(_:name:mainActorFactory:)`): it runs in place on the main
    /// actor, and `resolveAsync` runs it there from anywhere else.
    case mainActor
}

/// Thrown by the synchronous stand-in of an async or main-actor factory when a synchronous resolve cannot
/// run it. The engine turns it into ``DIError/asyncResolutionRequired(key:path:)`` or
/// ``DIError/mainActorRequired(key:path:)`` with the path in flight (`ResolutionState.abandon`).
@usableFromInline
struct IsolationRequired: Error {
    @usableFromInline let isolation: FactoryIsolation
    /// Set by `verify()`'s copies for a `.container` registration without arguments, which `warmUp()`
    /// creates before any synchronous resolve needs it: not a problem to report.
    @usableFromInline let warmUpSatisfies: Bool
    /// Set when the async registration asked for is being created by the asynchronous resolution this
    /// synchronous resolve runs in: the keys from where it is on that path. Not a missing `resolveAsync`
    /// but a cycle, which the engine reports with the synchronous part of the path added.
    @usableFromInline let cycle: [ServiceKey]?

    @usableFromInline
    init(_ isolation: FactoryIsolation, warmUpSatisfies: Bool = false, cycle: [ServiceKey]? = nil) {
        self.isolation = isolation
        self.warmUpSatisfies = warmUpSatisfies
        self.cycle = cycle
    }
}

import Foundation

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

/// The box of an async or main-actor factory, which an entry keeps in `argumentFactory` (with or without
/// runtime arguments): it says where the factory runs, and makes `verify()`'s stand-in.
@usableFromInline
protocol IsolatedFactory: AnyObject {
    /// A box of the same kind whose synchronous body always throws, for `verify()`'s scratch copies.
    func inspectionCopy(warmUpSatisfies: Bool) -> FactoryBox
    /// What the asynchronous path records for this factory on its path (``AsyncResolution/Step``), and
    /// the synchronous stand-in compares.
    var identity: ObjectIdentifier { get }
}

/// An object whose only use is its identity: the one an async factory's stand-in and the asynchronous
/// path's steps share.
@usableFromInline
final class FactoryIdentity: Sendable {
    @usableFromInline init() {}
}

/// An async factory. Its synchronous `body`, what a synchronous resolve runs, throws
/// ``IsolationRequired``; the async path runs `run`.
///
/// Reached by a synchronous factory that runs inside an asynchronous resolution already creating this
/// registration with equal arguments, the stand-in reports the cycle instead (the resolver it is handed
/// carries that resolution).
@usableFromInline
final class AsyncFactory<Service, Arguments>: ArgumentFactory<Service, Arguments>, IsolatedFactory {
    @usableFromInline let run: nonisolated(nonsending) @Sendable (any Resolver, Arguments) async throws -> Service
    private let token: FactoryIdentity

    @usableFromInline
    init(
        _ run: nonisolated(nonsending) @escaping @Sendable (any Resolver, Arguments) async throws -> Service,
        warmUpSatisfies: Bool = false
    ) {
        self.run = run
        let token = FactoryIdentity()
        self.token = token
        super.init(
            { resolver, arguments in
                let cycle = (resolver as? AsyncGraphResolver)?.context.cycleKeys(
                    closedBy: ObjectIdentifier(token),
                    arguments: arguments
                )
                throw IsolationRequired(.async, warmUpSatisfies: warmUpSatisfies, cycle: cycle)
            },
            isolation: .async
        )
    }

    @usableFromInline
    var identity: ObjectIdentifier {
        ObjectIdentifier(token)
    }

    @usableFromInline
    func inspectionCopy(warmUpSatisfies: Bool) -> FactoryBox {
        AsyncFactory(run, warmUpSatisfies: warmUpSatisfies)
    }
}

/// A main-actor factory. Its synchronous `body` runs it in place when called on the main actor, and
/// throws ``IsolationRequired`` anywhere else; the async path hops to the main actor to call it.
@usableFromInline
final class MainActorFactory<Service, Arguments>: ArgumentFactory<Service, Arguments>, IsolatedFactory {
    @usableFromInline let run: @MainActor (any Resolver, Arguments) -> Service

    @usableFromInline
    init(_ run: @escaping @MainActor (any Resolver, Arguments) -> Service) {
        self.run = run
        super.init(Self.inPlace(run), isolation: .mainActor)
    }

    /// The synchronous body: `run` in place on the main actor, ``IsolationRequired`` anywhere else.
    private static func inPlace(
        _ run: @escaping @MainActor (any Resolver, Arguments) -> Service
    ) -> (any Resolver, Arguments) throws -> Service {
        { resolver, arguments in
            guard MainActorCheck.isCurrent else {
                throw IsolationRequired(.mainActor)
            }
            // On the main actor: what `assumeIsolated` checks again holds. The resolver, the arguments and
            // the instance only pass through the main actor's code in this synchronous call.
            let input = Handoff((resolver, arguments))
            return MainActor.assumeIsolated {
                Handoff(run(input.value.0, input.value.1))
            }.value
        }
    }

    private init(standingInFor run: @escaping @MainActor (any Resolver, Arguments) -> Service, warmUpSatisfies: Bool) {
        self.run = run
        super.init(
            { _, _ in throw IsolationRequired(.mainActor, warmUpSatisfies: warmUpSatisfies) },
            isolation: .mainActor
        )
    }

    @usableFromInline
    func inspectionCopy(warmUpSatisfies: Bool) -> FactoryBox {
        MainActorFactory(standingInFor: run, warmUpSatisfies: warmUpSatisfies)
    }

    @usableFromInline
    var identity: ObjectIdentifier {
        ObjectIdentifier(self)
    }
}

/// Whether the code running now is on the main actor, asked without stopping the program when it is not.
///
/// The main actor's jobs run on the main dispatch queue; on Linux, under `swift test`, that queue is not
/// always drained by the main thread. So: the main thread, or any thread draining the main queue (told by
/// a queue-specific value set on it once).
@usableFromInline
enum MainActorCheck {
    private static let key: DispatchSpecificKey<UInt8> = {
        let key = DispatchSpecificKey<UInt8>()
        DispatchQueue.main.setSpecific(key: key, value: 1)
        return key
    }()

    @usableFromInline
    static var isCurrent: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: key) == 1
    }
}

/// A value handed from one task or actor to another that waits for it, once.
///
/// Unchecked `Sendable`: instances, factories' arguments and resolvers cross isolation domains under the
/// container's own contract, as they do through a ``SynchronizedResolver`` (the container does not make
/// instances thread-safe; a shared instance used from several tasks must be `Sendable` itself). The
/// engine hands each value over once: it is written before the receiver resumes and not used by the
/// sender afterwards. See ARCHITECTURE.md, "Async resolution".
@usableFromInline
struct Handoff<Value>: @unchecked Sendable {
    @usableFromInline let value: Value

    @usableFromInline
    init(_ value: Value) {
        self.value = value
    }
}

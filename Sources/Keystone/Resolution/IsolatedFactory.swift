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

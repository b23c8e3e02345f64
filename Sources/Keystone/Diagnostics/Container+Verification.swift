extension Container {
    /// Resolves every registration this container can see that takes no runtime arguments (and those
    /// `samples` gives arguments for), in a throwaway scope, and returns every problem met.
    ///
    /// One call in a unit test checks a whole graph:
    ///
    /// ```swift
    /// @Test func theAppGraphResolves() {
    ///     #expect(AppContainer.make().verify() == [])
    /// }
    /// ```
    ///
    /// The problems are reported all at once, each once:
    /// - every resolve, however deeply nested, that found no registration
    ///   (``DIError/notRegistered(key:path:candidates:)``, with the path that needed it), even where the
    ///   factory tolerated the `nil`;
    /// - every cycle (``DIError/circularDependency(path:)``), even where a factory tolerated the `nil`;
    /// - every factory or `initCompleted` action that threw, and every other failure of a registration;
    /// - every synchronous factory that depends on an async or main-actor registration
    ///   (``DIError/asyncResolutionRequired(key:path:)``, ``DIError/mainActorRequired(key:path:)``), unless
    ///   that dependency is `.container`-scoped without arguments, which ``warmUp()`` creates first. Async
    ///   and main-actor registrations are not problems in themselves, and async factories are never run.
    ///
    /// Main-actor factories (`register(_:name:mainActorFactory:)`) run when `verify()` itself runs on
    /// the main actor, as in a `@MainActor` test, and are checked like synchronous factories: their
    /// missing dependencies and their cycles are reported too. One runs where a resolve on the main
    /// actor would certainly run it: as a registration being checked, and when another main-actor
    /// factory, directly or through synchronous factories, asks for it. A synchronous factory checked on
    /// its own that asks for one is still reported (``DIError/mainActorRequired(key:path:)``), since it
    /// may be resolved off the main actor. Anywhere else (a background task, a ``DIActor``), main-actor
    /// factories are not run, and their own dependencies go unchecked:
    ///
    /// ```swift
    /// @Test @MainActor func theScreensResolve() {
    ///     #expect(AppContainer.make().verify() == [])   // main-actor view models checked too
    /// }
    /// ```
    ///
    /// The container's cached instances are neither read nor replaced: for the duration of the call,
    /// this container and its ancestors resolve from scratch copies of their registrations, which hold
    /// no instances and are thrown away afterwards, and resolution counts are left alone. Factories do
    /// run, so their side effects happen; a registration a factory makes meanwhile goes with the copies.
    ///
    /// > Warning: A factory that force-unwraps a missing dependency (`r.resolve(X.self)!`) stops the
    /// > program here as it would in the app. Write `try r.resolveThrows(X.self)` in factories to have
    /// > `verify()` report the missing registration instead.
    ///
    /// - Parameter samples: Runtime arguments for registrations that need them; those without samples
    ///   are skipped.
    /// - Returns: The problems found, in the order met; empty when the graph resolves cleanly.
    public func verify(samples: SampleArguments = SampleArguments()) -> [DIError] {
        inspect(samples: samples).problems
    }

    /// The dependencies among the registrations this container can see, observed by resolving each one
    /// that takes no runtime arguments (and those `samples` gives arguments for) in a throwaway scope,
    /// exactly as ``verify(samples:)`` does.
    ///
    /// ```swift
    /// print(container.dependencyGraph().mermaid)
    /// ```
    ///
    /// Nothing is recorded during ordinary resolves: the graph costs nothing until asked for.
    public func dependencyGraph(samples: SampleArguments = SampleArguments()) -> DependencyGraph {
        let inspection = inspect(samples: samples)
        return DependencyGraph(nodes: Array(inspection.nodes.values), edges: inspection.edges)
    }

    /// Resolves every registration visible from this container, and the sampled ones, while recording.
    private func inspect(samples: SampleArguments) -> Inspection {
        // Where the caller runs decides whether main-actor factories can run in place; the lock changes
        // no thread.
        let runsMainActorFactories = MainActorCheck.isCurrent
        return withHierarchyLock {
            let state = hierarchy.state
            let inspection = Inspection()
            guard state.calls == 0, !hierarchy.isInspecting else {
                inspection.note(
                    .invalidUsage(
                        message:
                            "verify() and dependencyGraph() cannot run inside a resolve; call them outside any factory."
                    )
                )
                return inspection
            }
            // Every container that a resolve from here can reach swaps its table for a scratch copy, so
            // that the engine's resolve path runs unchanged and nothing real is read or replaced.
            var chain: [Container] = []
            var container: Container? = self
            while let current = container {
                chain.append(current)
                container = current.parent
            }
            var copies: [ObjectIdentifier: any AnyServiceEntry] = [:]
            let scratch = chain.map { container in
                container.table.copy { entry in
                    if let copy = copies[ObjectIdentifier(entry)] {
                        return copy
                    }
                    let copy =
                        runsMainActorFactories && entry.isolation == .mainActor
                        ? (entry as! any MainActorInspection).scratchCopyRunningInPlace(in: state) : entry.scratchCopy()
                    copies[ObjectIdentifier(entry)] = copy
                    return copy
                }
            }
            for (container, table) in zip(chain, scratch) {
                container.table.exchangeContents(with: table)
            }
            hierarchy.isInspecting = true
            state.inspection = inspection
            defer {
                // Registrations made meanwhile went into the copies, and are dropped with them.
                state.inspection = nil
                hierarchy.isInspecting = false
                for (container, table) in zip(chain, scratch) {
                    container.table.exchangeContents(with: table)
                }
            }
            // Async registrations are not problems in themselves and cannot run here, nor main-actor ones
            // off the main actor; a synchronous factory that needs one is reported where it asks
            // (`ResolutionState.abandon`).
            let checked: (any AnyServiceEntry) -> Bool = { entry in
                entry.isolation == nil || (runsMainActorFactories && entry.isolation == .mainActor)
            }
            for (key, slot) in visibleRegistrations() where !slot.isForwarded && checked(slot.entry) {
                if key.takesArguments {
                    guard let sample = samples.resolves[key] else { continue }
                    inspection.noteEdge(from: nil, to: key, scope: slot.entry.objectScopeName)
                    do {
                        try sample(self)
                    } catch let error as DIError {
                        inspection.note(error)
                    } catch {
                        preconditionFailure("a sample resolve throws only DIError, not \(error)")
                    }
                } else {
                    do throws(DIError) {
                        try slot.entry.resolveForInspection(as: key, in: self)
                    } catch {
                        inspection.note(error)
                    }
                }
            }
            return inspection
        }
    }

    /// This container's registrations and those of its ancestors that it does not shadow, sorted by key.
    private func visibleRegistrations() -> [(ServiceKey, Slot)] {
        var seen: [ServiceKey: Slot] = [:]
        var container: Container? = self
        while let current = container {
            current.table.forEach { slot in
                if seen[slot.key] == nil {
                    seen[slot.key] = slot
                }
            }
            container = current.parent
        }
        return seen.sorted { $0.key.description < $1.key.description }.map { ($0.key, $0.value) }
    }
}

/// A registration whose scratch copy can run its main-actor factory in place, for `verify()` and
/// `dependencyGraph()` called on the main actor.
protocol MainActorInspection: AnyServiceEntry {
    /// Like `scratchCopy()`, but the copy runs the main-actor factory in place wherever a resolve on the
    /// main actor certainly runs it (``ResolutionState/runsOnTheMainActor``), and elsewhere fails as
    /// `scratchCopy()`'s stand-in does.
    func scratchCopyRunningInPlace(in state: ResolutionState) -> any AnyServiceEntry
}

extension ServiceEntry: MainActorInspection {
    func scratchCopyRunningInPlace(in state: ResolutionState) -> any AnyServiceEntry {
        guard let factory = argumentFactory as? any MainActorStandIn else { return scratchCopy() }
        let box = factory.standIn(
            runningInPlaceWhen: { state.runsOnTheMainActor },
            warmUpSatisfies: keepsOneInstanceWithoutArguments && !key.takesArguments
        )
        var plainFactory: ((any Resolver) throws -> Service)?
        if !key.takesArguments {
            let body = (box as! ArgumentFactory<Service, Void>).body
            plainFactory = { resolver in try body(resolver, ()) }
        }
        let copy = ServiceEntry(
            key: key,
            scope: objectScope,
            plainFactory: plainFactory,
            argumentFactory: box,
            resolveErased: resolveErased,
            completesGraph: completesGraph,
            registeredAt: registeredAt
        )
        copy.initCompletedActions = initCompletedActions
        copy.owner = owner
        copy.front = front
        return copy
    }
}

/// A main-actor factory box, which makes the stand-in of ``MainActorInspection``.
private protocol MainActorStandIn {
    func standIn(runningInPlaceWhen runsInPlace: @escaping () -> Bool, warmUpSatisfies: Bool) -> FactoryBox
}

extension MainActorFactory: MainActorStandIn {
    fileprivate func standIn(
        runningInPlaceWhen runsInPlace: @escaping () -> Bool,
        warmUpSatisfies: Bool
    ) -> FactoryBox {
        // `body` runs the factory in place on the main actor, where `verify()` was called.
        let body = self.body
        return ArgumentFactory<Service, Arguments>(
            { resolver, arguments in
                guard runsInPlace() else {
                    throw IsolationRequired(.mainActor, warmUpSatisfies: warmUpSatisfies)
                }
                return try body(resolver, arguments)
            },
            isolation: .mainActor
        )
    }
}

extension ResolutionState {
    /// Whether the factory about to run (the top frame's) runs on the main actor whoever resolves it:
    /// it was asked for at the top, by `verify()` on the main actor, or on behalf of a main-actor
    /// factory further down the path.
    var runsOnTheMainActor: Bool {
        let below = frames.dropLast()
        return below.isEmpty || below.contains { $0.entry.isolation == .mainActor }
    }
}

/// Runtime arguments for ``Container/verify(samples:)`` and ``Container/dependencyGraph(samples:)`` to
/// resolve registrations that take them.
///
/// ```swift
/// var samples = SampleArguments()
/// samples.add(Animal.self, arguments: "Spirit", true)
/// #expect(container.verify(samples: samples) == [])
/// ```
public struct SampleArguments: Sendable {
    /// Resolves, by key; each throws only `DIError`. Each captures only the key and the sample values,
    /// which are `Sendable`.
    var resolves: [ServiceKey: @Sendable (Container) throws -> Void] = [:]

    /// Creates an empty set of samples.
    public init() {}

    /// Adds the arguments to resolve the registration of `serviceType` under `name` with; their static
    /// types must be the registration's argument types.
    public mutating func add<Service, each Argument: Sendable>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments: repeat each Argument
    ) {
        var count = 0
        for _ in repeat (each Argument).self {
            count += 1
        }
        add(Service.self, name: name, argumentCount: count, packed: (repeat each arguments))
    }

    private mutating func add<Service, Arguments: Sendable>(
        _ serviceType: Service.Type,
        name: String?,
        argumentCount: Int,
        packed: Arguments
    ) {
        let key = ServiceKey(
            serviceType: Service.self,
            name: name,
            argumentsType: Arguments.self,
            argumentCount: argumentCount
        )
        resolves[key] = { container in
            let _: Service = try container.resolve(key, arguments: packed, resolver: container)
        }
    }
}

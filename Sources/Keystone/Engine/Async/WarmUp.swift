import Foundation

extension Container {
    /// Creates every `.container`-scoped registration this container can see that takes no runtime
    /// arguments (and every `.multiton` one without arguments, which is the same), each once: the async
    /// ones first, all started at once, then the main-actor ones, then the synchronous ones, each in
    /// registration order. So a main-actor or synchronous factory may depend on an async one registered
    /// after it.
    ///
    /// The async creations overlap: while one awaits (a file, the network), the others go on, and each
    /// waits only for the registrations it resolves, so a launch takes about as long as its longest chain
    /// of dependent creations. They take turns in one isolation, never run in parallel: the caller's, or
    /// one of their own when the caller has none. A factory may therefore use the container it captured
    /// as it would during a `resolveAsync`.
    ///
    /// Call it at launch, so that synchronous code can resolve services whose factories are asynchronous:
    ///
    /// ```swift
    /// container.registerAsync(Database.self) { _ in try await Database.open() }
    ///     .inObjectScope(.container)
    /// container.register(Repository.self) { r in Repository(database: r.resolve(Database.self)!) }
    ///     .inObjectScope(.container)
    /// try await container.warmUp()
    /// let repository = container.resolve(Repository.self)  // synchronous, and finds the database
    /// ```
    ///
    /// Called inside a factory during a `resolveAsync`, it is part of that resolution: a registration it
    /// would create that is being created on the way to it (the factory's own, or one waiting for it) is a
    /// cycle, and fails with ``DIError/circularDependency(path:)`` instead of waiting for itself.
    ///
    /// - Throws: The first ``DIError`` met; the instances created before it are kept.
    nonisolated(nonsending) public func warmUp() async throws(DIError) {
        let entries = hierarchy.withLock { () -> [(ServiceKey, Handoff<any AnyServiceEntry>)] in
            var seen: Set<ServiceKey> = []
            // By where the factory runs: async, main-actor, synchronous. Each group may depend on the ones
            // before it, whatever the registration order.
            var groups: [[(ServiceKey, Handoff<any AnyServiceEntry>, Date)]] = [[], [], []]
            var container: Container? = self
            while let current = container {
                current.table.forEach { slot in
                    guard seen.insert(slot.key).inserted, !slot.isForwarded, !slot.key.takesArguments,
                        slot.entry.keepsOneInstanceWithoutArguments
                    else { return }
                    let group =
                        switch slot.entry.isolation {
                        case .async?: 0
                        case .mainActor?: 1
                        case nil: 2
                        }
                    groups[group].append((slot.key, Handoff(slot.entry), slot.entry.registeredAt))
                }
                container = current.parent
            }
            return groups.flatMap { group in group.sorted { $0.2 < $1.2 }.map { ($0.0, $0.1) } }
        }
        // Inside a factory, in the task running it, warm-up is part of that resolution: what is being
        // created on the way to it is a cycle, as a resolve of it would be.
        if let context = AsyncResolution.inFlight {
            for (key, entry) in entries {
                _ = try await entry.value.resolveAsyncErased(as: key, arguments: (), in: self, context: context)
            }
            return
        }
        let asynchronous = entries.prefix { $0.1.value.isolation == .async }
        try await createTogether(Array(asynchronous))
        for (key, entry) in entries.dropFirst(asynchronous.count) {
            _ = try await entry.value.resolveAsTopLevel(as: key, in: self)
        }
    }

    /// Creates `entries` (async registrations without arguments) as overlapping top-level resolves, each in
    /// a child task isolated to `isolation`, or, when the caller has none, to an actor of their own: they
    /// take turns at their suspension points and never run in parallel. Waits for all of them; throws the
    /// first failure met.
    private func createTogether(
        _ entries: [(ServiceKey, Handoff<any AnyServiceEntry>)],
        isolation: isolated (any Actor)? = #isolation
    ) async throws(DIError) {
        guard entries.count > 1 else {
            for (key, entry) in entries {
                try await entry.value.resolveAsTopLevel(as: key, in: self)
            }
            return
        }
        let lane: any Actor = isolation ?? WarmUpLane()
        let failure = await withTaskGroup(of: DIError?.self) { group -> DIError? in
            for (key, entry) in entries {
                // The container crosses into the child tasks, which run one at a time on `lane`.
                let work = Handoff((self, key, entry.value))
                group.addTask {
                    await Self.create(work, on: lane)
                }
            }
            var first: DIError?
            for await failure in group where first == nil {
                first = failure
            }
            return first
        }
        if let failure {
            throw failure
        }
    }

    /// Creates the registration `work` names, isolated to `lane`; returns its failure, if any.
    private static func create(
        _ work: Handoff<(Container, ServiceKey, any AnyServiceEntry)>,
        on lane: isolated any Actor
    ) async -> DIError? {
        // Keeps the hop to `lane` this function starts with. The compiler (Swift 6.3) drops the hop of a
        // function whose first executor-bound step is a call of a `nonisolated(nonsending)` protocol
        // requirement: `resolveAsTopLevel` then ran its engine steps off the lane, in parallel with
        // another creation's factory resolving from the captured plain container (a data race, seen by
        // Thread Sanitizer in `neverInParallel`). A synchronous call on the lane before it keeps the
        // hop, and checks it.
        lane.preconditionIsolated()
        let (container, key, entry) = work.value
        do {
            try await entry.resolveAsTopLevel(as: key, in: container)
            return nil
        } catch {
            return error
        }
    }
}

/// The isolation in which `warmUp()` overlaps its async creations when its caller has none.
private actor WarmUpLane {}

import Foundation

extension Container {
    /// Creates every `.container`-scoped registration this container can see that takes no runtime
    /// arguments (and every `.multiton` one without arguments, which is the same), each once: the async
    /// ones first, then the main-actor ones, then the synchronous ones, each group in registration order.
    /// So a main-actor or synchronous factory may depend on an async one registered after it.
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
        for (key, entry) in entries {
            _ = try await entry.value.resolveAsTopLevel(as: key, in: self)
        }
    }
}

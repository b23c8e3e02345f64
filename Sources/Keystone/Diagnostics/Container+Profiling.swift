extension Container {
    /// Runs `body` and records every creation the container's hierarchy makes meanwhile: each factory
    /// call, synchronous, async or main-actor, of any scope, through this container, its parent or its
    /// children, a synchronized view or a front, on any thread.
    ///
    /// ```swift
    /// let (app, profile) = container.profilingCreations {
    ///     container.resolve(App.self)!
    /// }
    /// print(profile.table(top: 10))  // the registrations that took the longest, by their own time
    /// ```
    ///
    /// Outside such a call nothing is recorded, and resolves pay nothing for it. A profile recorded inside
    /// another one's body takes the creations made during its own body; the outer one resumes after.
    ///
    /// - Returns: What `body` returned, and the profile.
    public func profilingCreations<R>(_ body: () throws -> R) rethrows -> (result: R, profile: CreationProfile) {
        let profiler = startProfiling()
        defer { stopProfiling(profiler) }
        let result = try body()
        return (result, profiler.profile())
    }

    /// Runs the asynchronous `body` and records every creation the container's hierarchy makes meanwhile,
    /// as ``profilingCreations(_:)`` does: `warmUp()` and `resolveAsync` included.
    ///
    /// ```swift
    /// let (_, profile) = try await container.profilingCreations {
    ///     try await container.warmUp()
    /// }
    /// try profile.chromeTrace.write(toFile: "launch.json", atomically: true, encoding: .utf8)
    /// ```
    ///
    /// - Returns: What `body` returned, and the profile.
    nonisolated(nonsending) public func profilingCreations<R>(
        _ body: nonisolated(nonsending) () async throws -> R
    ) async rethrows -> (result: R, profile: CreationProfile) {
        let profiler = startProfiling()
        defer { stopProfiling(profiler) }
        let result = try await body()
        return (result, profiler.profile())
    }

    /// The profile being recorded in this hierarchy, if any.
    var profiler: CreationProfiler? {
        hierarchy.withLock { hierarchy.state.call.profiler }
    }

    /// Makes a new profile the one recorded, until ``stopProfiling(_:)``.
    private func startProfiling() -> CreationProfiler {
        let profiler = CreationProfiler()
        hierarchy.withLock {
            hierarchy.state.call.profilers.append(profiler)
            hierarchy.state.call.profiler = profiler
        }
        return profiler
    }

    /// Ends `profiler`: the latest profile still being recorded, if any, is recorded again. Profiles
    /// whose bodies overlap may end in any order.
    private func stopProfiling(_ profiler: CreationProfiler) {
        hierarchy.withLock {
            hierarchy.state.call.profilers.removeAll { $0 === profiler }
            hierarchy.state.call.profiler = hierarchy.state.call.profilers.last
        }
    }
}

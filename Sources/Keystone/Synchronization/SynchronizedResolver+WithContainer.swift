import Foundation

extension SynchronizedResolver {
    /// Runs `body` with this view's container, holding the hierarchy's lock: the way to register, or
    /// configure, while other threads resolve through the hierarchy.
    ///
    /// Other threads' resolves, registrations and resets wait until `body` returns, so they see every
    /// registration made in it whole, with its scope, `initCompleted` actions and forwarded types:
    ///
    /// ```swift
    /// let resolver = container.synchronize()   // already shared with worker threads
    /// resolver.withContainer { c in
    ///     c.register(Cache.self) { _ in Cache() }
    ///         .inObjectScope(.container)       // no thread sees Cache without its scope
    ///     c.register(Feed.self) { r in Feed(cache: r.resolve(Cache.self)!) }
    /// }
    /// ```
    ///
    /// The lock is recursive: `body` may resolve, through the container or this view. Registrations made
    /// before `body` throws stay registered, as they would outside the block. The disposal handlers of
    /// instances the block drops (by registering a service again, resetting or removing) run before the
    /// block returns, so under the lock.
    ///
    /// > Warning: The container is handed to `body` for the duration of the call only: keep using it
    /// > directly afterwards and nothing serializes those calls. Every thread blocks on the lock while
    /// > `body` runs, so keep it short, and never wait in it for another thread that resolves.
    ///
    /// - Parameter body: Registers or configures, with the container.
    /// - Returns: What `body` returns.
    @discardableResult
    public func withContainer<T>(_ body: (Container) throws -> T) rethrows -> T {
        let hierarchy = container.hierarchy
        hierarchy.lock.lock()
        defer { hierarchy.lock.unlock() }
        return try body(container)
    }
}

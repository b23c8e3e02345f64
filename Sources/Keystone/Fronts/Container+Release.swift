extension Container {
    /// Removes the registration under `key` from this container (not from its ancestors), whichever
    /// entry it is, and drops the instances it holds, as a removal does: their synchronous disposal
    /// handlers run once the lock is left, and a creation of it in flight keeps nothing. The fronts'
    /// "release this type".
    ///
    /// A key that `implements` forwarded to another registration is removed too, but the instance is
    /// left alone: it belongs to the registration still in place under its own key. Everything happens
    /// under the hierarchy's lock, so a synchronized resolve sees the registration either whole or gone.
    ///
    /// - Returns: Whether something was registered under `key`.
    @discardableResult
    func unregister(_ key: ServiceKey) -> Bool {
        var dropped: [Disposal] = []
        defer { Disposal.runDropped(dropped) }
        return withHierarchyLock {
            guard let removed = table.remove(key) else { return false }
            hierarchy.state.retire(removed.entry)
            if !removed.isForwarded {
                drop(removed.entry, into: &dropped)
            }
            return true
        }
    }
}

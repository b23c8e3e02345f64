extension Container {
    /// Looks up `key` here, then in the ancestors: the nearest container that has `key` answers. The one
    /// walk of the hierarchy every resolve makes; misses and forwarded keys continue on the typed path
    /// with what it found.
    @inlinable @inline(__always)
    func lookup(_ key: ServiceKey) -> RegistrationTable.Lookup {
        let found = table.lookup(key)
        if case .missing = found, let parent {
            return parent.lookup(key)
        }
        return found
    }

    /// The slot registered under `key` here or in the nearest ancestor that has one.
    @usableFromInline
    func slot(for key: ServiceKey) -> Slot? {
        var container: Container? = self
        while let current = container {
            if let slot = current.table.slot(for: key) {
                return slot
            }
            container = current.parent
        }
        return nil
    }

    /// Whether `key` is registered here or in an ancestor, directly or forwarded.
    func isRegistered(_ key: ServiceKey) -> Bool {
        slot(for: key) != nil
    }

    /// The name of the scope `key` is registered in, or `nil` when it is not registered.
    func scopeName(of key: ServiceKey) -> String? {
        slot(for: key)?.entry.objectScopeName
    }
}

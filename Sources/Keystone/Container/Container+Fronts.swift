extension Container {
    /// The registration this container itself holds under `key`: not one forwarded to it, not an
    /// ancestor's. The fronts use it to tell whether a registration they made is still the one in
    /// effect, or whether registering would replace another.
    ///
    /// The caller holds the hierarchy's lock.
    func ownEntry(for key: ServiceKey) -> (any AnyServiceEntry)? {
        guard let slot = table.slot(for: key), !slot.isForwarded else { return nil }
        return slot.entry
    }

    /// Creates a new instance of the registration of `serviceType` under `name` under the hierarchy's
    /// lock, handing `resolver` to the factory: ``resolveNew(_:name:resolver:)`` for callers that are
    /// not already serialized.
    func synchronizedResolveNew<Service>(
        _ serviceType: Service.Type,
        name: String?,
        resolver: SynchronizedResolver
    ) throws(DIError) -> Service {
        try hierarchy.withLock { () throws(DIError) in
            try resolveNew(serviceType, name: name, resolver: resolver)
        }
    }
}

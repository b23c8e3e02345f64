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

    /// The registrations this container itself holds (not forwarded keys, not an ancestor's) that a
    /// front made and `matches` accepts, in the order the fronts made them.
    ///
    /// It reads the table under the hierarchy's lock and changes nothing: the caller acts on the entries
    /// it returns afterwards, never while the table is being walked.
    func frontEntries(where matches: (FrontRecord) -> Bool) -> [any AnyServiceEntry] {
        withHierarchyLock {
            var found: [(order: Int, entry: any AnyServiceEntry)] = []
            table.forEach { slot in
                guard !slot.isForwarded, let front = slot.entry.front, matches(front) else { return }
                found.append((front.order, slot.entry))
            }
            return found.sorted { $0.order < $1.order }.map(\.entry)
        }
    }
}

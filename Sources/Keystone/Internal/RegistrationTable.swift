/// Where a registration key leads: an entry registered under it, or an entry forwarded to it from
/// another service type (`implements`).
struct Slot {
    let entry: any AnyServiceEntry
    let isForwarded: Bool
}

/// A container's own registrations, indexed by service type first.
///
/// The first level is an open-addressing table keyed by the service type's metadata pointer, hashed by
/// multiplication rather than `Hasher`: a lookup costs a multiply, a load and a compare. Each service
/// type leads to a bucket of its registrations, usually one, told apart by name and argument types.
/// A miss on a known service type therefore has the near misses of a "did you mean" list at hand, and
/// finding them costs nothing extra.
struct RegistrationTable {
    enum Bucket {
        case empty
        case one(ServiceKey, Slot)
        case many([(key: ServiceKey, slot: Slot)])
    }

    private var types: [ObjectIdentifier?]
    private var buckets: [Bucket]
    /// Positions in use (service types seen, including those whose bucket was emptied since).
    private var occupied = 0
    /// The number of registrations.
    private(set) var count = 0

    init() {
        types = Array(repeating: nil, count: 16)
        buckets = Array(repeating: .empty, count: 16)
    }

    private static func position(of type: ObjectIdentifier, mask: Int) -> Int {
        // Fibonacci hashing: the high bits of the product mix every bit of the pointer.
        let bits = UInt(bitPattern: Int(bitPattern: type)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: bits >> 32) & mask
    }

    private func index(of type: ObjectIdentifier) -> Int? {
        let mask = types.count - 1
        var index = Self.position(of: type, mask: mask)
        while let candidate = types[index] {
            if candidate == type {
                return index
            }
            index = (index + 1) & mask
        }
        return nil
    }

    /// The slot registered under `key`.
    func slot(for key: ServiceKey) -> Slot? {
        guard let index = index(of: ObjectIdentifier(key.serviceType)) else { return nil }
        switch buckets[index] {
        case .empty:
            return nil
        case .one(let registered, let slot):
            return registered.argumentsType == key.argumentsType && registered.name == key.name ? slot : nil
        case .many(let list):
            for item in list where item.key.argumentsType == key.argumentsType && item.key.name == key.name {
                return item.slot
            }
            return nil
        }
    }

    /// The keys registered for `serviceType`, under any name and argument types.
    func keys(of serviceType: Any.Type) -> [ServiceKey] {
        guard let index = index(of: ObjectIdentifier(serviceType)) else { return [] }
        switch buckets[index] {
        case .empty: return []
        case .one(let key, _): return [key]
        case .many(let list): return list.map(\.key)
        }
    }

    /// Registers `slot` under `key` and returns the slot it replaced, if any.
    @discardableResult
    mutating func insert(_ slot: Slot, for key: ServiceKey) -> Slot? {
        let type = ObjectIdentifier(key.serviceType)
        let index: Int
        if let existing = self.index(of: type) {
            index = existing
        } else {
            if (occupied + 1) * 4 > types.count * 3 {
                grow()
            }
            let mask = types.count - 1
            var free = Self.position(of: type, mask: mask)
            while types[free] != nil {
                free = (free + 1) & mask
            }
            types[free] = type
            occupied += 1
            index = free
        }
        switch buckets[index] {
        case .empty:
            buckets[index] = .one(key, slot)
        case .one(let registered, let previous):
            if registered == key {
                buckets[index] = .one(key, slot)
                return previous
            }
            buckets[index] = .many([(registered, previous), (key, slot)])
        case .many(var list):
            if let position = list.firstIndex(where: { $0.key == key }) {
                let previous = list[position].slot
                list[position].slot = slot
                buckets[index] = .many(list)
                return previous
            }
            list.append((key, slot))
            buckets[index] = .many(list)
        }
        count += 1
        return nil
    }

    /// Removes the registration under `key` if `shouldRemove` accepts its slot; returns the removed slot.
    @discardableResult
    mutating func remove(_ key: ServiceKey, if shouldRemove: (Slot) -> Bool = { _ in true }) -> Slot? {
        guard let index = index(of: ObjectIdentifier(key.serviceType)) else { return nil }
        switch buckets[index] {
        case .empty:
            return nil
        case .one(let registered, let slot):
            guard registered == key, shouldRemove(slot) else { return nil }
            buckets[index] = .empty
            count -= 1
            return slot
        case .many(var list):
            guard let position = list.firstIndex(where: { $0.key == key }), shouldRemove(list[position].slot) else {
                return nil
            }
            let removed = list.remove(at: position).slot
            buckets[index] = list.count == 1 ? .one(list[0].key, list[0].slot) : .many(list)
            count -= 1
            return removed
        }
    }

    /// Every registration, in no particular order.
    func forEach(_ body: (ServiceKey, Slot) throws -> Void) rethrows {
        for bucket in buckets {
            switch bucket {
            case .empty:
                continue
            case .one(let key, let slot):
                try body(key, slot)
            case .many(let list):
                for item in list {
                    try body(item.key, item.slot)
                }
            }
        }
    }

    private mutating func grow() {
        let oldTypes = types
        let oldBuckets = buckets
        let capacity = types.count * 2
        types = Array(repeating: nil, count: capacity)
        buckets = Array(repeating: .empty, count: capacity)
        occupied = 0
        let mask = capacity - 1
        for (type, bucket) in zip(oldTypes, oldBuckets) {
            guard let type else { continue }
            if case .empty = bucket { continue }
            var index = Self.position(of: type, mask: mask)
            while types[index] != nil {
                index = (index + 1) & mask
            }
            types[index] = type
            buckets[index] = bucket
            occupied += 1
        }
    }
}

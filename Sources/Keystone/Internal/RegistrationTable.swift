/// A registration as the table holds it: the key it is registered under, and the entry that key leads
/// to, registered under it or forwarded to it from another service type (`implements`).
@usableFromInline
struct Slot {
    @usableFromInline let key: ServiceKey
    @usableFromInline let entry: any AnyServiceEntry
    @usableFromInline let isForwarded: Bool

    @usableFromInline
    init(key: ServiceKey, entry: any AnyServiceEntry, isForwarded: Bool) {
        self.key = key
        self.entry = entry
        self.isForwarded = isForwarded
    }
}

/// A container's own registrations, indexed by service type first.
///
/// The first level is an open-addressing table keyed by the service type's metadata pointer, hashed by
/// multiplication rather than `Hasher`: finding a service type costs a multiply, a load and a compare.
/// Each service type leads to a bucket of its registrations: usually one, told apart from the key by
/// comparing two words; several (names, argument types) live in a dictionary. A miss on a known service
/// type therefore has the near misses of a "did you mean" list at hand.
///
/// The resolve path reads two plain buffers (service types, and a "hot" copy of each type's single
/// registration) through pointers: no reference counting, no bounds or uniqueness checks. The buckets,
/// which own the entries, are read only when a service type has several registrations. The lookup is
/// `@inlinable` so that a resolve specializes in the caller's module.
///
/// The table is changed only under the hierarchy's lock, never while a resolve reads it.
@usableFromInline
final class RegistrationTable {
    /// The registrations of one service type.
    @usableFromInline
    enum Bucket {
        case empty
        case one(Slot)
        case many([Variant: Slot])
    }

    /// What tells apart the registrations of one service type.
    @usableFromInline
    struct Variant: Hashable {
        @usableFromInline let argumentsType: ObjectIdentifier
        @usableFromInline let name: String?

        @inlinable
        init(_ key: ServiceKey) {
            argumentsType = ObjectIdentifier(key.argumentsType)
            name = key.name
        }
    }

    /// The single registration of a service type, when it has exactly one and it is not forwarded, as
    /// the resolve path needs it. The bucket at the same position owns the entry; `entry` is valid while
    /// the bucket holds it.
    @usableFromInline
    struct HotSlot {
        @usableFromInline var argumentsBits: UInt = 0
        @usableFromInline var name: String?
        @usableFromInline var entry: Unmanaged<AnyObject>?
        @usableFromInline var resolveErased: ErasedResolve = HotSlot.vacant

        /// The resolve of a position without a hot entry; never called (`entry` is `nil` there).
        @usableFromInline
        static func vacant(
            _: AnyObject,
            _: Container,
            _: ServiceKey,
            _: UnsafeRawPointer,
            _: any Resolver,
            _: UnsafeMutableRawPointer
        ) throws(DIError) {}

        init() {}

        init(_ bucket: Bucket) {
            guard case .one(let slot) = bucket, !slot.isForwarded else { return }
            argumentsBits = RegistrationTable.bits(of: slot.key.argumentsType)
            name = slot.key.name
            entry = Unmanaged.passUnretained(slot.entry as AnyObject)
            resolveErased = slot.entry.resolveErased
        }
    }

    /// What a lookup of a key in one container finds.
    @usableFromInline
    enum Lookup {
        /// Nothing under the key: look in the parent.
        case missing
        /// An entry registered under the key, and its type-erased resolve.
        case registered(Unmanaged<AnyObject>, ErasedResolve)
        /// A type forwarded to another registration under the key: only the general path serves it.
        case forwarded
    }

    // The fields below skip dynamic exclusivity checks: they are changed only under the hierarchy's lock,
    // between resolves, and no access to one of them overlaps another.

    /// The number of positions, a power of two.
    @exclusivity(unchecked) @usableFromInline private(set) var capacity: Int
    /// Service types by position, as metadata pointer bits; 0 marks a free position.
    @exclusivity(unchecked) @usableFromInline private(set) var types: UnsafeMutablePointer<UInt>
    /// The single registration at each position, if there is exactly one.
    @exclusivity(unchecked) @usableFromInline private(set) var hot: UnsafeMutablePointer<HotSlot>
    /// The registrations at each position; they own the entries.
    @exclusivity(unchecked) private var buckets: [Bucket]
    /// Positions in use (service types seen, including those whose bucket was emptied since).
    @exclusivity(unchecked) private var occupied = 0
    /// The number of registrations.
    @exclusivity(unchecked) private(set) var count = 0

    init() {
        capacity = 16
        types = .allocate(capacity: capacity)
        types.initialize(repeating: 0, count: capacity)
        hot = .allocate(capacity: capacity)
        hot.initialize(repeating: HotSlot(), count: capacity)
        buckets = Array(repeating: .empty, count: capacity)
    }

    deinit {
        types.deallocate()
        hot.deinitialize(count: capacity)
        hot.deallocate()
    }

    @inlinable
    static func bits(of type: Any.Type) -> UInt {
        UInt(bitPattern: ObjectIdentifier(type))
    }

    @inlinable
    static func position(of bits: UInt, mask: Int) -> Int {
        // Fibonacci hashing: the high bits of the product mix every bit of the pointer.
        Int(truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// The position of `type`, if it has one.
    @inlinable
    func index(of type: Any.Type) -> Int? {
        let bits = Self.bits(of: type)
        let mask = capacity &- 1
        var index = Self.position(of: bits, mask: mask)
        while true {
            let candidate = types[index]
            if candidate == bits {
                return index
            }
            if candidate == 0 {
                return nil
            }
            index = (index &+ 1) & mask
        }
    }

    /// Looks up `key`: a service type with a single registration is answered from its hot slot without
    /// reference counting; others from their bucket.
    @inlinable
    func lookup(_ key: ServiceKey) -> Lookup {
        guard let index = index(of: key.serviceType) else { return .missing }
        let slot = hot + index
        if let entry = slot.pointee.entry, slot.pointee.argumentsBits == Self.bits(of: key.argumentsType),
            slot.pointee.name == key.name
        {
            return .registered(entry, slot.pointee.resolveErased)
        }
        return lookupInBucket(at: index, key)
    }

    /// ``lookup(_:)`` for a service type with several registrations, or a miss on its single one.
    @usableFromInline
    func lookupInBucket(at index: Int, _ key: ServiceKey) -> Lookup {
        guard let slot = slot(at: index, for: key) else { return .missing }
        if slot.isForwarded {
            return .forwarded
        }
        return .registered(Unmanaged.passUnretained(slot.entry as AnyObject), slot.entry.resolveErased)
    }

    /// The slot registered under `key`.
    @usableFromInline
    func slot(for key: ServiceKey) -> Slot? {
        guard let index = index(of: key.serviceType) else { return nil }
        return slot(at: index, for: key)
    }

    /// The slot registered under `key`, whose service type is at `index`.
    private func slot(at index: Int, for key: ServiceKey) -> Slot? {
        switch buckets[index] {
        case .empty:
            return nil
        case .one(let slot):
            return slot.key.argumentsType == key.argumentsType && slot.key.name == key.name ? slot : nil
        case .many(let variants):
            return variants[Variant(key)]
        }
    }

    /// The keys registered for `serviceType`, under any name and argument types.
    func keys(of serviceType: Any.Type) -> [ServiceKey] {
        guard let index = index(of: serviceType) else { return [] }
        switch buckets[index] {
        case .empty: return []
        case .one(let slot): return [slot.key]
        case .many(let variants): return variants.values.map(\.key)
        }
    }

    /// Registers `slot` under its key and returns the slot it replaced, if any.
    @discardableResult
    func insert(_ slot: Slot) -> Slot? {
        let key = slot.key
        let index = self.index(of: key.serviceType) ?? claimPosition(for: key.serviceType)
        // Take the bucket out while changing it, so that its dictionary is not copied.
        var bucket = buckets[index]
        buckets[index] = .empty
        defer { setBucket(bucket, at: index) }
        switch bucket {
        case .empty:
            bucket = .one(slot)
        case .one(let previous):
            if previous.key == key {
                bucket = .one(slot)
                return previous
            }
            bucket = .many([Variant(previous.key): previous, Variant(key): slot])
        case .many(var variants):
            bucket = .empty
            let previous = variants.updateValue(slot, forKey: Variant(key))
            bucket = .many(variants)
            if previous != nil {
                return previous
            }
        }
        count += 1
        return nil
    }

    /// Removes the registration under `key` if `shouldRemove` accepts its slot; returns the removed slot.
    @discardableResult
    func remove(_ key: ServiceKey, if shouldRemove: (Slot) -> Bool = { _ in true }) -> Slot? {
        guard let index = index(of: key.serviceType) else { return nil }
        var bucket = buckets[index]
        buckets[index] = .empty
        defer { setBucket(bucket, at: index) }
        switch bucket {
        case .empty:
            return nil
        case .one(let slot):
            guard slot.key == key, shouldRemove(slot) else { return nil }
            bucket = .empty
            count -= 1
            return slot
        case .many(var variants):
            let variant = Variant(key)
            guard let slot = variants[variant], shouldRemove(slot) else { return nil }
            bucket = .empty
            variants[variant] = nil
            if variants.count == 1, let kept = variants.first?.value {
                bucket = .one(kept)
            } else {
                bucket = .many(variants)
            }
            count -= 1
            return slot
        }
    }

    /// Removes every registration.
    func removeAll() {
        for index in 0..<capacity where types[index] != 0 {
            setBucket(.empty, at: index)
        }
        count = 0
    }

    /// Every registration, in no particular order.
    func forEach(_ body: (Slot) throws -> Void) rethrows {
        for bucket in buckets {
            switch bucket {
            case .empty:
                continue
            case .one(let slot):
                try body(slot)
            case .many(let variants):
                for slot in variants.values {
                    try body(slot)
                }
            }
        }
    }

    private func setBucket(_ bucket: Bucket, at index: Int) {
        buckets[index] = bucket
        hot[index] = HotSlot(bucket)
    }

    private func claimPosition(for type: Any.Type) -> Int {
        if (occupied + 1) * 4 > capacity * 3 {
            grow()
        }
        let bits = Self.bits(of: type)
        let mask = capacity - 1
        var free = Self.position(of: bits, mask: mask)
        while types[free] != 0 {
            free = (free + 1) & mask
        }
        types[free] = bits
        occupied += 1
        return free
    }

    private func grow() {
        let oldCapacity = capacity
        let oldTypes = types
        let oldHot = hot
        let oldBuckets = buckets
        capacity = oldCapacity * 2
        types = .allocate(capacity: capacity)
        types.initialize(repeating: 0, count: capacity)
        hot = .allocate(capacity: capacity)
        hot.initialize(repeating: HotSlot(), count: capacity)
        buckets = Array(repeating: .empty, count: capacity)
        occupied = 0
        let mask = capacity - 1
        for old in 0..<oldCapacity where oldTypes[old] != 0 {
            if case .empty = oldBuckets[old] { continue }
            var index = Self.position(of: oldTypes[old], mask: mask)
            while types[index] != 0 {
                index = (index + 1) & mask
            }
            types[index] = oldTypes[old]
            setBucket(oldBuckets[old], at: index)
            occupied += 1
        }
        oldTypes.deallocate()
        oldHot.deinitialize(count: oldCapacity)
        oldHot.deallocate()
    }
}

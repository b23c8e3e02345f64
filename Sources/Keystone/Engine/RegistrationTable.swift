import Foundation

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
/// Each service type leads to a bucket of its registrations, changed in place: usually one; a few are
/// searched in order; many are indexed by name and argument types. A miss on a known service type
/// therefore has the near misses of a "did you mean" list at hand.
///
/// The resolve path reads two plain buffers (service types, and a "hot" copy of each type's single
/// registration) through pointers: no reference counting, no bounds or uniqueness checks. The buckets,
/// which own the entries, are read only when a service type has several registrations. The lookup is
/// `@inlinable` so that a resolve specializes in the caller's module.
///
/// The table is changed only under the hierarchy's lock, never while a resolve reads it.
@usableFromInline
final class RegistrationTable {
    /// The registrations of one service type: the single one inline (the common case, no allocation), or
    /// a bucket of several.
    @usableFromInline
    enum Registrations {
        case one(Slot)
        case several(Bucket)
    }

    /// Several registrations of one service type, changed in place. A few are searched in order; many
    /// have an index by name and argument types.
    @usableFromInline
    final class Bucket {
        /// Past this many registrations, a bucket keeps an index instead of being searched in order.
        static let indexThreshold = 8

        /// The registrations, and their index once there are many.
        struct Contents {
            var slots: [Slot] = []
            var index: NameIndex?
        }

        // Changed only under the hierarchy's lock, in single statements: no dynamic exclusivity checks
        // (rows `register` +14% and `named` +12% instructions with them).
        @exclusivity(unchecked) private var contents = Contents()

        /// The registrations, in the order they were added.
        var slots: [Slot] { contents.slots }

        init(_ slots: [Slot]) {
            contents.slots = slots
        }

        /// The position in `slots` of the registration under `key`.
        func position(of key: ServiceKey) -> Int? {
            contents.slots.withUnsafeBufferPointer { slots in position(of: key, in: slots) }
        }

        /// ``position(of:)`` in `slots`, these registrations read in place.
        private func position(of key: ServiceKey, in slots: UnsafeBufferPointer<Slot>) -> Int? {
            if let index = contents.index {
                return index.position(of: key, hash: NameIndex.hash(of: key.name), in: slots)
            }
            return slots.firstIndex { $0.key.matches(key) }
        }

        /// Looks up `key` among these registrations, reading the one found in place: no copy of its
        /// slot, and so no reference counting of its name (`named` row, 10% fewer instructions).
        func lookup(_ key: ServiceKey) -> Lookup {
            contents.slots.withUnsafeBufferPointer { slots in
                guard let position = position(of: key, in: slots) else { return .missing }
                if slots[position].isForwarded {
                    return .forwarded
                }
                let entry = slots[position].entry
                return .registered(entry as AnyObject, entry.resolveErased)
            }
        }

        /// Adds `slot`, or replaces the registration under its key; returns the one replaced.
        func insert(_ slot: Slot) -> Slot? {
            if contents.index != nil {
                // Hash the name once, to look for it and to add it.
                let hash = NameIndex.hash(of: slot.key.name)
                let found = contents.slots.withUnsafeBufferPointer { slots in
                    contents.index!.position(of: slot.key, hash: hash, in: slots)
                }
                if let position = found {
                    return replace(at: position, with: slot)
                }
                contents.slots.append(slot)
                contents.index!.add(slots.count - 1, hash: hash)
                return nil
            }
            if let position = position(of: slot.key) {
                return replace(at: position, with: slot)
            }
            contents.slots.append(slot)
            if slots.count > Self.indexThreshold {
                rebuildIndex()
            }
            return nil
        }

        private func replace(at position: Int, with slot: Slot) -> Slot {
            let previous = slots[position]
            contents.slots[position] = slot
            return previous
        }

        /// Removes the slot at `position`.
        func remove(at position: Int) -> Slot {
            let removed = contents.slots.remove(at: position)
            if contents.index != nil {
                rebuildIndex()
            }
            return removed
        }

        private func rebuildIndex() {
            guard slots.count > Self.indexThreshold else {
                contents.index = nil
                return
            }
            var built = NameIndex(capacity: slots.count * 2)
            for (position, slot) in slots.enumerated() {
                built.add(position, hash: NameIndex.hash(of: slot.key.name))
            }
            contents.index = built
        }
    }

    /// An open-addressing index from a registration's name to its position in a bucket. Each place is one
    /// word: the low 32 bits of the name's hash above, the position below. Growing never hashes a name
    /// again (the placement mask stays far below 32 bits), and a name is compared only when the stored
    /// hash bits match. One word a place rather than a hash word and a position (12 bytes): memory row,
    /// 8 bytes less per registration.
    struct NameIndex {
        /// `hash bits << 32 | (position + 1)`; 0 marks a free place.
        private var places: [UInt64]
        private var count = 0

        init(capacity: Int) {
            var size = 16
            while size < capacity * 2 {
                size *= 2
            }
            places = Array(repeating: 0, count: size)
        }

        /// FNV-1a over the UTF-8 bytes of the name's canonical composition (NFC): names are chosen by the
        /// app's developers, not by an adversary, so a fast hash serves, where `Hasher`'s SipHash would
        /// cost more than the lookup. Names are compared with `String ==`, which holds canonically
        /// equivalent spellings equal ("é" precomposed or as "e" and a combining accent, "K" or the
        /// Kelvin sign), so they must hash alike: an ASCII name is its own composition, any other is
        /// composed first.
        static func hash(of name: String?) -> Int {
            guard let name else { return 0 }
            let (hash, isASCII) = fnv1a(of: name)
            return isASCII ? hash : fnv1a(of: name.precomposedStringWithCanonicalMapping).hash
        }

        /// FNV-1a of the name's UTF-8 bytes, and whether they are all ASCII, in one pass.
        private static func fnv1a(of name: String) -> (hash: Int, isASCII: Bool) {
            var name = name
            return name.withUTF8 { bytes in
                var hash: UInt64 = 0xCBF2_9CE4_8422_2325
                var seen: UInt8 = 0
                for byte in bytes {
                    seen |= byte
                    hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
                }
                return (Int(truncatingIfNeeded: hash ^ (hash >> 29)), seen < 0x80)
            }
        }

        func position(of key: ServiceKey, hash: Int, in slots: UnsafeBufferPointer<Slot>) -> Int? {
            let mask = places.count &- 1
            let bits = UInt64(UInt32(truncatingIfNeeded: hash)) << 32
            var place = hash & mask
            while places[place] != 0 {
                if places[place] & 0xFFFF_FFFF_0000_0000 == bits {
                    let position = Int(truncatingIfNeeded: places[place] & 0xFFFF_FFFF) &- 1
                    if slots[position].key.matches(key) {
                        return position
                    }
                }
                place = (place &+ 1) & mask
            }
            return nil
        }

        mutating func add(_ position: Int, hash: Int) {
            if (count + 1) * 2 > places.count {
                grow()
            }
            insert(UInt64(UInt32(truncatingIfNeeded: hash)) << 32 | UInt64(position + 1))
        }

        /// Puts `word` (hash bits and position) in the first free place from its hash's.
        private mutating func insert(_ word: UInt64) {
            let mask = places.count &- 1
            var place = Int(truncatingIfNeeded: word >> 32) & mask
            while places[place] != 0 {
                place = (place &+ 1) & mask
            }
            places[place] = word
            count += 1
        }

        private mutating func grow() {
            let old = places
            places = Array(repeating: 0, count: old.count * 2)
            count = 0
            for word in old where word != 0 {
                insert(word)
            }
        }
    }

    /// The single registration of a service type, when it has exactly one and it is not forwarded, as
    /// the resolve path needs it. It holds the entry strongly: measured against an unretained reference, that
    /// is faster on every row of the instruction-count gate (`register` 11% fewer instructions).
    @usableFromInline
    struct HotSlot {
        @usableFromInline var argumentsBits: UInt = 0
        @usableFromInline var name: String?
        @usableFromInline var entry: AnyObject?
        @usableFromInline var resolveErased: ErasedResolve = HotSlot.vacant

        /// The resolve of a position without a hot entry; never called (`entry` is `nil` there).
        @usableFromInline
        static func vacant(
            _: AnyObject,
            _: Container,
            _: ServiceKey,
            _: UnsafeRawPointer,
            _: ResolverReference,
            _: UnsafeMutableRawPointer
        ) throws(DIError) {}

        init() {}

        // The initializers fill the fields in place: one delegating to another copied the whole slot
        // (`register` row, 16% more instructions).
        init(_ registrations: Registrations?) {
            if case .one(let slot) = registrations {
                fill(from: slot)
            }
        }

        /// The hot slot of a position whose only registration is `slot`.
        init(_ slot: Slot) {
            fill(from: slot)
        }

        private mutating func fill(from slot: Slot) {
            guard !slot.isForwarded else {
                return
            }
            argumentsBits = RegistrationTable.argumentsBits(of: slot.key)
            name = slot.key.name
            entry = slot.entry as AnyObject
            resolveErased = slot.entry.resolveErased
        }
    }

    /// The table's fields, in one value. `types` and `hot` are raw buffers rather than arrays: arrays cost
    /// +4% on `container` and +3% on `startup`. `buckets` is one too, so that growing moves each
    /// position's registrations instead of copying them (the `app-launch` row).
    ///
    /// Only `types` is initialized in full. A position's hot slot and registrations are initialized when
    /// a service type claims it, and stay so until the buffers are freed: every read of `hot` or
    /// `buckets` is at a position whose service type is set. Free positions are never written, so growing
    /// a table costs a pass over `types` and a move of each claimed position, not a value made and
    /// destroyed per position (`register` and `app-launch` rows).
    @usableFromInline
    struct Layout {
        /// The number of positions, a power of two.
        @usableFromInline var capacity: Int
        /// Service types by position, as metadata pointer bits; 0 marks a free position.
        @usableFromInline var types: UnsafeMutablePointer<UInt>
        /// The single registration at each claimed position, if there is exactly one.
        @usableFromInline var hot: UnsafeMutablePointer<HotSlot>
        /// The registrations at each claimed position; they own the entries.
        var buckets: UnsafeMutablePointer<Registrations?>
        /// Positions in use (service types seen, including those whose bucket was emptied since).
        var occupied = 0
        /// The number of registrations.
        var count = 0

        init(capacity: Int) {
            self.capacity = capacity
            (types, hot, buckets) = RegistrationTable.makeBuffers(capacity: capacity)
        }
    }

    // Skips dynamic exclusivity checks: the layout is changed only under the hierarchy's lock, between
    // resolves, and no access to it overlaps another (rows `container` +88%, `great-grandchild` +50%,
    // `synchronized-container` +49% instructions with the checks).
    @exclusivity(unchecked) @usableFromInline private(set) var layout = Layout(capacity: 16)

    /// The number of positions, a power of two.
    @inlinable var capacity: Int { layout.capacity }
    /// Service types by position, as metadata pointer bits; 0 marks a free position.
    @inlinable var types: UnsafeMutablePointer<UInt> { layout.types }
    /// The single registration at each claimed position, if there is exactly one.
    @inlinable var hot: UnsafeMutablePointer<HotSlot> { layout.hot }
    /// The registrations at each claimed position; they own the entries.
    private var buckets: UnsafeMutablePointer<Registrations?> { layout.buckets }
    /// The number of registrations.
    var count: Int { layout.count }

    init() {}

    deinit {
        Self.freeBuffers(capacity: capacity, types: types, hot: hot, buckets: buckets)
    }

    /// Allocates the buffers of `capacity` free positions: `types` all 0, `hot` and `buckets`
    /// uninitialized until their position is claimed (see ``Layout``). One allocation holds the three,
    /// `types` first (a new child container's table: two allocations fewer, `server-scope` row); each
    /// part starts at a multiple of its alignment, and ``deallocateBuffers(types:)`` frees them together.
    fileprivate static func makeBuffers(
        capacity: Int
    ) -> (UnsafeMutablePointer<UInt>, UnsafeMutablePointer<HotSlot>, UnsafeMutablePointer<Registrations?>) {
        let (hotOffset, bucketsOffset, size) = bufferOffsets(capacity: capacity)
        let alignment = max(
            MemoryLayout<UInt>.alignment,
            MemoryLayout<HotSlot>.alignment,
            MemoryLayout<Registrations?>.alignment
        )
        let raw = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: alignment)
        let types = raw.bindMemory(to: UInt.self, capacity: capacity)
        types.initialize(repeating: 0, count: capacity)
        let hot = (raw + hotOffset).bindMemory(to: HotSlot.self, capacity: capacity)
        let buckets = (raw + bucketsOffset).bindMemory(to: Registrations?.self, capacity: capacity)
        return (types, hot, buckets)
    }

    /// Where `hot` and `buckets` start in the one allocation of `capacity` positions, and its size.
    private static func bufferOffsets(capacity: Int) -> (hot: Int, buckets: Int, size: Int) {
        func aligned(_ offset: Int, to alignment: Int) -> Int {
            (offset + alignment - 1) / alignment * alignment
        }
        let hot = aligned(MemoryLayout<UInt>.stride * capacity, to: MemoryLayout<HotSlot>.alignment)
        let buckets = aligned(
            hot + MemoryLayout<HotSlot>.stride * capacity,
            to: MemoryLayout<Registrations?>.alignment
        )
        return (hot, buckets, buckets + MemoryLayout<Registrations?>.stride * capacity)
    }

    /// Frees the one allocation `makeBuffers` made, which starts at `types`; every claimed position was
    /// deinitialized first.
    private static func deallocateBuffers(types: UnsafeMutablePointer<UInt>) {
        UnsafeMutableRawPointer(types).deallocate()
    }

    /// Frees buffers made by `makeBuffers`, deinitializing the positions ever claimed (a service type in
    /// `types`), the only ones initialized.
    private static func freeBuffers(
        capacity: Int,
        types: UnsafeMutablePointer<UInt>,
        hot: UnsafeMutablePointer<HotSlot>,
        buckets: UnsafeMutablePointer<Registrations?>
    ) {
        for index in 0..<capacity where types[index] != 0 {
            _ = (hot + index).move()
            _ = (buckets + index).move()
        }
        deallocateBuffers(types: types)
    }

    /// The slot registered under `key`.
    @usableFromInline
    func slot(for key: ServiceKey) -> Slot? {
        guard let index = index(of: key.serviceType) else { return nil }
        return slot(at: index, for: key)
    }

    /// The registrations of the service type at `index`.
    func bucketContents(at index: Int) -> Registrations? {
        buckets[index]
    }

    /// The slot registered under `key`, whose service type is at `index`.
    func slot(at index: Int, for key: ServiceKey) -> Slot? {
        switch buckets[index] {
        case nil:
            return nil
        case .one(let slot):
            return slot.key.matches(key) ? slot : nil
        case .several(let bucket):
            return bucket.position(of: key).map { bucket.slots[$0] }
        }
    }

    /// The slots registered for `serviceType`, under any name and argument types, in registration order.
    func slots(of serviceType: Any.Type) -> [Slot] {
        guard let index = index(of: serviceType) else { return [] }
        switch buckets[index] {
        case nil: return []
        case .one(let slot): return [slot]
        case .several(let bucket): return bucket.slots
        }
    }

    /// Calls `body` with each key registered for `serviceType`, under any name and argument types. A
    /// closure rather than an array: a miss's error looks here for near misses, and there are usually
    /// none (`failed` row: 763 instructions with an array per container, 670 with this).
    func forEachKey(of serviceType: Any.Type, _ body: (ServiceKey) -> Void) {
        guard let index = index(of: serviceType) else { return }
        switch buckets[index] {
        case nil: return
        case .one(let slot): body(slot.key)
        case .several(let bucket): bucket.slots.forEach { body($0.key) }
        }
    }

    /// Registers `slot` under its key and returns the slot it replaced, if any.
    @discardableResult
    func insert(_ slot: Slot) -> Slot? {
        let index = self.index(of: slot.key.serviceType) ?? claimPosition(for: slot.key.serviceType)
        var replaced: Slot?
        switch buckets[index] {
        case nil:
            // The common case, a service type's first registration: its hot slot is made from `slot`,
            // not from a copy of the bucket just written (`app-launch` row).
            hot[index] = HotSlot(slot)
            buckets[index] = .one(slot)
            layout.count += 1
            return nil
        case .one(let existing):
            if existing.key == slot.key {
                replaced = existing
                buckets[index] = .one(slot)
            } else {
                buckets[index] = .several(Bucket([existing, slot]))
            }
        case .several(let bucket):
            replaced = bucket.insert(slot)
        }
        if replaced == nil {
            layout.count += 1
        }
        hot[index] = HotSlot(buckets[index])
        return replaced
    }

    /// Removes the registration under `key` if `shouldRemove` accepts its slot; returns the removed slot.
    @discardableResult
    func remove(_ key: ServiceKey, if shouldRemove: (Slot) -> Bool = { _ in true }) -> Slot? {
        guard let index = index(of: key.serviceType), let slot = slot(at: index, for: key), shouldRemove(slot) else {
            return nil
        }
        switch buckets[index] {
        case .several(let bucket):
            if let position = bucket.position(of: key) {
                _ = bucket.remove(at: position)
            }
            if bucket.slots.count == 1 {
                buckets[index] = .one(bucket.slots[0])
            }
        case .one, nil:
            buckets[index] = nil
        }
        hot[index] = HotSlot(buckets[index])
        layout.count -= 1
        return slot
    }

    /// Removes every registration, and returns them: the caller releases them once the table is
    /// settled, since a released entry may run deinitializers that register again.
    func removeAll() -> [Registrations] {
        var removed: [Registrations] = []
        for index in 0..<capacity where types[index] != 0 {
            if let registrations = buckets[index].take() {
                removed.append(registrations)
                hot[index] = HotSlot()
            }
        }
        layout.count = 0
        return removed
    }

    /// Whether some key of the table leads to `entry`, registered or forwarded.
    func references(_ entry: any AnyServiceEntry) -> Bool {
        var found = false
        forEach { slot in
            found = found || slot.entry === entry
        }
        return found
    }

    /// A table with the same keys, each leading to `copy(entry)`: what inspection resolves from.
    func copy(mappingEntries copy: (any AnyServiceEntry) -> any AnyServiceEntry) -> RegistrationTable {
        let table = RegistrationTable()
        forEach { slot in
            _ = table.insert(Slot(key: slot.key, entry: copy(slot.entry), isForwarded: slot.isForwarded))
        }
        return table
    }

    /// Exchanges everything this table holds with `other`, so that inspection can put a scratch copy in
    /// a container's place and take it out again. The caller holds the hierarchy's lock, outside any
    /// resolve.
    func exchangeContents(with other: RegistrationTable) {
        swap(&layout, &other.layout)
    }

    /// Every registration, in no particular order. The positions are read first, so that `body` may
    /// change the table (a deinitializer it triggers may register) without disturbing the walk.
    func forEach(_ body: (Slot) throws -> Void) rethrows {
        var all: [Registrations] = []
        all.reserveCapacity(layout.occupied)
        for index in 0..<capacity where types[index] != 0 {
            if let registrations = buckets[index] {
                all.append(registrations)
            }
        }
        for registrations in all {
            switch registrations {
            case .one(let slot):
                try body(slot)
            case .several(let bucket):
                for slot in bucket.slots {
                    try body(slot)
                }
            }
        }
    }

    private func claimPosition(for type: Any.Type) -> Int {
        if (layout.occupied + 1) * 4 > capacity * 3 {
            grow()
        }
        let bits = Self.bits(of: type)
        let mask = capacity - 1
        var free = Self.position(of: bits, mask: mask)
        while types[free] != 0 {
            free = (free + 1) & mask
        }
        types[free] = bits
        (hot + free).initialize(to: HotSlot())
        (buckets + free).initialize(to: nil)
        layout.occupied += 1
        return free
    }

    private func grow() {
        let old = layout
        layout = Layout(capacity: old.capacity * 2)
        layout.count = old.count
        let (oldCapacity, oldTypes, oldHot, oldBuckets) = (old.capacity, old.types, old.hot, old.buckets)
        let mask = capacity - 1
        // Each claimed position's registrations and hot slot are moved, not copied: no reference
        // counting, no hot slot made again. A position whose registrations were all removed is dropped.
        for old in 0..<oldCapacity where oldTypes[old] != 0 {
            guard let registrations = (oldBuckets + old).move() else {
                (oldHot + old).deinitialize(count: 1)
                continue
            }
            var index = Self.position(of: oldTypes[old], mask: mask)
            while types[index] != 0 {
                index = (index + 1) & mask
            }
            types[index] = oldTypes[old]
            (buckets + index).initialize(to: registrations)
            (hot + index).moveInitialize(from: oldHot + old, count: 1)
            layout.occupied += 1
        }
        // Every claimed position was moved out or deinitialized: nothing is left to destroy.
        Self.deallocateBuffers(types: oldTypes)
    }
}

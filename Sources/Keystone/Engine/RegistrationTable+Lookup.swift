/// Finding a key in one container's table: the service type's position, then its hot slot (a single
/// registration) or its bucket. The table's storage is in `RegistrationTable.swift`.
extension RegistrationTable {
    /// What a lookup of a key in one container finds.
    @usableFromInline
    enum Lookup {
        /// Nothing under the key: look in the parent.
        case missing
        /// An entry registered under the key, and its type-erased resolve.
        case registered(AnyObject, ErasedResolve)
        /// A type forwarded to another registration under the key: only the general path serves it.
        case forwarded
    }

    @inlinable
    static func bits(of type: Any.Type) -> UInt {
        UInt(bitPattern: ObjectIdentifier(type))
    }

    /// The argument types of `key` and whether it takes exactly one argument, as one word (see
    /// ``ServiceKey/argumentsWord``).
    @inlinable @inline(__always)
    static func argumentsBits(of key: ServiceKey) -> UInt {
        key.argumentsWord
    }

    @inlinable
    static func position(of bits: UInt, mask: Int) -> Int {
        // Fibonacci hashing: the high bits of the product mix every bit of the pointer.
        Int(truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// The position of `type`, if it has one.
    @inlinable @inline(__always)
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
    @inlinable @inline(__always)
    func lookup(_ key: ServiceKey) -> Lookup {
        guard let index = index(of: key.serviceType) else { return .missing }
        let slot = hot + index
        if let entry = slot.pointee.entry, slot.pointee.argumentsBits == Self.argumentsBits(of: key),
            slot.pointee.name == key.name
        {
            return .registered(entry, slot.pointee.resolveErased)
        }
        return lookupInBucket(at: index, key)
    }

    /// ``lookup(_:)`` for a service type with several registrations, or a miss on its single one.
    @usableFromInline
    func lookupInBucket(at index: Int, _ key: ServiceKey) -> Lookup {
        if case .several(let bucket) = bucketContents(at: index) {
            return bucket.lookup(key)
        }
        // A single registration under another name or argument types, or a forwarded one.
        guard let slot = slot(at: index, for: key) else { return .missing }
        if slot.isForwarded {
            return .forwarded
        }
        return .registered(slot.entry as AnyObject, slot.entry.resolveErased)
    }

}

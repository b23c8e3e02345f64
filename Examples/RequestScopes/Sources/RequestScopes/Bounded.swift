// Fixed-size collections for the app's long-lived records. A server that keeps every order, every log line
// and every request's record grows without end, and each time a growing array or dictionary outgrows its
// storage it copies everything into a larger one, under the lock every request waits for. These keep the
// last `capacity` entries in storage reserved once, up front, and count what they let go of.

/// The last `capacity` elements appended, oldest first; older ones are overwritten.
public struct RecentElements<Element> {
    /// How many elements are kept at most.
    public let capacity: Int
    /// How many elements were ever appended, the overwritten ones included.
    public private(set) var appendedCount = 0
    private var storage: [Element] = []
    /// Where the oldest element is, once the storage is full.
    private var oldest = 0

    /// Creates an empty collection that keeps up to `capacity` elements.
    ///
    /// - Precondition: `capacity` is positive.
    public init(capacity: Int) {
        precondition(capacity > 0, "A bounded collection must keep at least one element.")
        self.capacity = capacity
        storage.reserveCapacity(capacity)
    }

    /// How many elements are kept: `appendedCount`, or `capacity` once that many were appended.
    public var count: Int {
        storage.count
    }

    /// Appends `element`; if `capacity` elements are kept already, the oldest is dropped.
    public mutating func append(_ element: Element) {
        appendedCount += 1
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[oldest] = element
            oldest = (oldest + 1) % capacity
        }
    }

    /// Appends each of `elements`, in order.
    public mutating func append(contentsOf elements: some Sequence<Element>) {
        for element in elements {
            append(element)
        }
    }

    /// The oldest element kept, the next to be dropped once the collection is full.
    public var first: Element? {
        storage.isEmpty ? nil : storage[oldest]
    }

    /// The elements kept, oldest first.
    public var elements: [Element] {
        Array(storage[oldest...] + storage[..<oldest])
    }
}

extension RecentElements: Sendable where Element: Sendable {}

/// A dictionary that keeps the `capacity` keys inserted last: inserting a new key when it is full drops the
/// key inserted longest ago, with its value. Updating a key that is kept does not make it newer.
public struct RecentDictionary<Key: Hashable, Value> {
    /// How many keys are kept at most.
    public let capacity: Int
    /// How many keys were dropped to make room for newer ones.
    public private(set) var evictedCount = 0
    private var values: [Key: Value] = [:]
    /// The keys kept, in the order they were inserted, starting at `oldest` once full.
    private var order: RecentElements<Key>

    /// Creates an empty dictionary that keeps up to `capacity` keys.
    ///
    /// - Precondition: `capacity` is positive.
    public init(capacity: Int) {
        self.capacity = capacity
        order = RecentElements(capacity: capacity)
        values.reserveCapacity(capacity)
    }

    /// How many keys are kept.
    public var count: Int {
        values.count
    }

    /// The value of `key`, or `nil` if it was never inserted or was dropped.
    public subscript(key: Key) -> Value? {
        values[key]
    }

    /// Lets `body` change the value of `key`, inserting `defaultValue` first if the key is not kept (and
    /// dropping the oldest key if the dictionary is full).
    public mutating func update<Result>(
        _ key: Key,
        default defaultValue: @autoclosure () -> Value,
        _ body: (inout Value) -> Result
    ) -> Result {
        if values[key] == nil {
            if order.count == capacity {
                // The oldest key, whose slot `order.append` overwrites next.
                values[order.first!] = nil
                evictedCount += 1
            }
            order.append(key)
            values[key] = defaultValue()
        }
        return body(&values[key]!)
    }

    /// The keys kept and their values.
    public var dictionary: [Key: Value] {
        values
    }
}

extension RecentDictionary: Sendable where Key: Sendable, Value: Sendable {}

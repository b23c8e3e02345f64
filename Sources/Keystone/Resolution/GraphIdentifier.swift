/// The identity of one object graph: the instances shared by everything a single top-level resolve
/// creates in the ``ObjectScope/graph`` scope.
///
/// Inside a factory, `resolver.resolve(GraphIdentifier.self)` returns the graph being resolved;
/// ``Container/withObjectGraph(_:closure:)`` resolves inside a graph again later, reusing those of its
/// instances that are still alive. Outside a resolve, `resolve(GraphIdentifier.self)` is `nil`.
///
/// ```swift
/// var graph: GraphIdentifier?
/// container.register(Dog.self) { r in
///     graph = r.resolve(GraphIdentifier.self)
///     return Dog()
/// }
/// let dog = container.resolve(Dog.self)!
/// container.withObjectGraph(graph!) { $0.resolve(Dog.self) } // the same dog
/// ```
public struct GraphIdentifier: Hashable, Identifiable, Sendable {
    let record: GraphRecord

    /// Creates the identity of a new, empty graph.
    public init() {
        record = GraphRecord()
    }

    init(record: GraphRecord) {
        self.record = record
    }

    /// A value unique to this graph while it exists.
    public var id: ObjectIdentifier {
        ObjectIdentifier(record)
    }

    /// Whether both identify the same graph.
    public static func == (lhs: GraphIdentifier, rhs: GraphIdentifier) -> Bool {
        lhs.record === rhs.record
    }

    /// Hashes the graph's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(record))
    }
}

/// The instances of one graph, kept after its top-level resolve returned for the `Lazy` values and
/// graph identifiers that may resolve in it again: strongly while such a resolve is in flight,
/// weakly otherwise, so a remembered graph never keeps its objects alive.
///
/// A graph identifier is `Sendable`, and may be used with any container, so the record has a lock of its
/// own. Instances are keyed by their registration's ``ServiceEntry/graphRecordKey``, never reused by a
/// later registration (an entry's address may be).
@usableFromInline
final class GraphRecord: Sendable {
    private enum Reference {
        case strong(Any)
        case weak(WeakReference)
    }

    private final class WeakReference {
        weak var object: AnyObject?
        init(_ object: AnyObject) { self.object = object }
    }

    /// The instances, each in a `Handoff`: a graph identifier is `Sendable`, so whoever resolves in the
    /// graph, from any thread, may get them, under the container's contract for instances.
    private let instances = LockedValue<[UInt64: Handoff<Reference>]>([:])
    /// How many asynchronous top-level calls resolve in this graph now: while one does, its instances
    /// stay strong between its sub-resolves (``weakenAll()`` waits for the last one to end).
    private let holders = LockedValue(0)

    /// The source of registrations' record keys: one counter for the process, since a graph identifier
    /// may cross hierarchies.
    private static let lastKey = LockedValue<UInt64>(0)

    /// A key no registration had before.
    static func newKey() -> UInt64 {
        lastKey.withLock { key in
            key += 1
            return key
        }
    }

    /// The instance the registration with record key `key` has in this graph, if it is still alive.
    func instance(for key: UInt64) -> Any? {
        instances.withLock { instances in
            switch instances[key]?.value {
            case .strong(let value): value
            case .weak(let reference): reference.object
            case nil: nil
            }
        }
    }

    /// Keeps `instance` strongly until ``weakenAll()``.
    func store(_ instance: Any, for key: UInt64) {
        instances.withLock { $0[key] = Handoff(.strong(instance)) }
    }

    /// Remembers `instance` weakly; value types are not remembered.
    func remember(_ instance: Any, for key: UInt64) {
        guard let object = WeakStorage.referenceIfClass(instance) else { return }
        instances.withLock { $0[key] = Handoff(.weak(WeakReference(object))) }
    }

    /// Forgets the instance of the registration with record key `key` (it did not complete).
    func forget(_ key: UInt64) {
        let removed = instances.withLock { $0.removeValue(forKey: key) }
        withExtendedLifetime(removed) {}
    }

    /// Keeps every instance strongly until the matching ``endHold()``, whatever the sub-resolves in between
    /// do: an asynchronous top-level call resolves its graph in many synchronous steps.
    func hold() {
        holders.withLock { $0 += 1 }
    }

    /// Ends a ``hold()``; the last one weakens the instances.
    func endHold() {
        let last = holders.withLock { holders in
            holders -= 1
            return holders == 0
        }
        if last {
            weakenAll()
        }
    }

    /// Turns every strong reference into a weak one and forgets the values and dead objects; nothing while
    /// the graph is held (``hold()``).
    func weakenAll() {
        guard holders.withLock({ $0 }) == 0 else { return }
        // Released outside the lock: a deinitializer may use this graph again.
        let released = instances.withLock { instances -> [Reference] in
            var released: [Reference] = []
            for (key, reference) in instances {
                switch reference.value {
                case .strong(let value):
                    released.append(reference.value)
                    if let object = WeakStorage.referenceIfClass(value) {
                        instances[key] = Handoff(.weak(WeakReference(object)))
                    } else {
                        instances[key] = nil
                    }
                case .weak(let weak) where weak.object == nil:
                    instances[key] = nil
                case .weak:
                    break
                }
            }
            return released
        }
        withExtendedLifetime(released) {}
    }
}

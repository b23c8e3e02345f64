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

    public static func == (lhs: GraphIdentifier, rhs: GraphIdentifier) -> Bool {
        lhs.record === rhs.record
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(record))
    }
}

/// The instances of one graph, kept after its top-level resolve returned for the `Lazy` values and
/// graph identifiers that may resolve in it again: strongly while such a resolve is in flight,
/// weakly otherwise, so a remembered graph never keeps its objects alive.
@usableFromInline
final class GraphRecord: @unchecked Sendable {
    // @unchecked: read and written only by the engine while it resolves; a synchronized view
    // serializes those resolves, and an unsynchronized container is used from one thread at a time.

    private enum Reference {
        case strong(Any)
        case weak(WeakReference)
    }

    private final class WeakReference {
        weak var object: AnyObject?
        init(_ object: AnyObject) { self.object = object }
    }

    private var instances: [ObjectIdentifier: Reference] = [:]

    /// The instance the registration identified by `entry` has in this graph, if it is still alive.
    func instance(for entry: ObjectIdentifier) -> Any? {
        switch instances[entry] {
        case .strong(let value): value
        case .weak(let reference): reference.object
        case nil: nil
        }
    }

    /// Keeps `instance` strongly until ``weakenAll()``.
    func store(_ instance: Any, for entry: ObjectIdentifier) {
        instances[entry] = .strong(instance)
    }

    /// Remembers `instance` weakly; value types are not remembered.
    func remember(_ instance: Any, for entry: ObjectIdentifier) {
        if let object = WeakStorage.referenceIfClass(instance) {
            instances[entry] = .weak(WeakReference(object))
        }
    }

    /// Turns every strong reference into a weak one and forgets the values and dead objects.
    func weakenAll() {
        for (entry, reference) in instances {
            switch reference {
            case .strong(let value):
                if let object = WeakStorage.referenceIfClass(value) {
                    instances[entry] = .weak(WeakReference(object))
                } else {
                    instances[entry] = nil
                }
            case .weak(let weak) where weak.object == nil:
                instances[entry] = nil
            case .weak:
                break
            }
        }
    }
}

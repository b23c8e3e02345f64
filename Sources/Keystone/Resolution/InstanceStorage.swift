/// Where a custom ``ObjectScope`` keeps a registration's instance.
///
/// The container reads ``instance(inGraph:)`` before calling a factory and writes
/// ``setInstance(_:inGraph:)`` after; ``graphResolutionCompleted()`` is called when the top-level
/// resolve that touched the storage returns. Only `instance` is required:
///
/// ```swift
/// final class SessionStorage: InstanceStorage {
///     var instance: Any?
/// }
/// ```
public protocol InstanceStorage: AnyObject {
    /// The stored instance, if any. Setting `nil` discards it (`resetObjectScope` does).
    var instance: Any? { get set }
    /// Called when the top-level resolve that used this storage returns.
    func graphResolutionCompleted()
    /// The instance to reuse within `graph`, if any.
    func instance(inGraph graph: GraphIdentifier) -> Any?
    /// Stores a newly created instance, created while resolving `graph`.
    func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier)
}

extension InstanceStorage {
    /// Does nothing.
    public func graphResolutionCompleted() {}

    /// Returns ``instance``.
    public func instance(inGraph graph: GraphIdentifier) -> Any? {
        instance
    }

    /// Sets ``instance``.
    public func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
        self.instance = instance
    }
}

/// Storage that keeps an instance until it is reset: the storage of ``ObjectScope/container``.
public final class PermanentStorage: InstanceStorage {
    /// The stored instance.
    public var instance: Any?

    /// Creates empty storage.
    public init() {}
}

/// Storage that never keeps anything: the storage of ``ObjectScope/transient``.
public final class TransientStorage: InstanceStorage {
    /// Always `nil`; setting it has no effect.
    public var instance: Any? {
        get { nil }
        set {}  // swift-format-ignore: nothing is kept, by definition
    }

    /// Creates the storage.
    public init() {}
}

/// Storage that holds a class instance weakly: the storage of ``ObjectScope/weak``.
///
/// A value type cannot be held weakly, so storing one leaves the storage empty.
public final class WeakStorage: InstanceStorage {
    private weak var object: AnyObject?

    /// The stored object while something else keeps it alive.
    public var instance: Any? {
        get { object }
        set { object = newValue.flatMap(WeakStorage.referenceIfClass) }
    }

    /// Creates empty storage.
    public init() {}

    /// The value as an object if it is a class instance; `nil` for values, which would otherwise be
    /// boxed into a fresh object that dies at once.
    static func referenceIfClass(_ value: Any) -> AnyObject? {
        type(of: value) is AnyClass ? value as AnyObject : nil
    }
}

/// Storage that keeps an instance for the duration of one object graph and remembers it weakly
/// afterwards, per graph: the storage of ``ObjectScope/graph`` for code that uses it directly.
public final class GraphStorage: InstanceStorage {
    private var current: Any?
    private var remembered: [GraphIdentifier: WeakBox] = [:]

    /// The instance of the graph being resolved.
    public var instance: Any? {
        get { current }
        set { current = newValue }
    }

    /// Creates empty storage.
    public init() {}

    /// Drops the strong reference to the graph's instance.
    public func graphResolutionCompleted() {
        current = nil
    }

    /// The instance stored for `graph`, while it is alive.
    public func instance(inGraph graph: GraphIdentifier) -> Any? {
        remembered[graph]?.object
    }

    /// Stores the instance for `graph`: strongly until the graph completes, weakly afterwards.
    public func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
        current = instance
        remembered = remembered.filter { $0.value.object != nil }
        remembered[graph] = WeakBox(instance.flatMap(WeakStorage.referenceIfClass))
    }

    private final class WeakBox {
        weak var object: AnyObject?
        init(_ object: AnyObject?) { self.object = object }
    }
}

/// Storage that combines several: it reads the first that has an instance and writes all of them.
public final class CompositeStorage: InstanceStorage {
    private let components: [any InstanceStorage]

    /// The first instance any component holds; setting it sets every component.
    public var instance: Any? {
        get {
            // Each component is read once (a lazy `compactMap(...).first` reads the one that answers
            // twice).
            for component in components {
                if let instance = component.instance {
                    return instance
                }
            }
            return nil
        }
        set {
            for component in components {
                component.instance = newValue
            }
        }
    }

    /// Creates storage over `components`, read in order.
    public init(_ components: [any InstanceStorage]) {
        self.components = components
    }

    /// Forwards to every component.
    public func graphResolutionCompleted() {
        for component in components {
            component.graphResolutionCompleted()
        }
    }

    /// The first instance any component holds for `graph`.
    public func instance(inGraph graph: GraphIdentifier) -> Any? {
        for component in components {
            if let instance = component.instance(inGraph: graph) {
                return instance
            }
        }
        return nil
    }

    /// Stores the instance in every component.
    public func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
        for component in components {
            component.setInstance(instance, inGraph: graph)
        }
    }
}

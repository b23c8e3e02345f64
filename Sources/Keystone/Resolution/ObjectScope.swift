/// A kind of lifetime for resolved instances: it makes the storage each registration keeps its
/// instances in.
///
/// Conform to it to define a scope whose storage is shared or computed in a way ``ObjectScope``'s
/// initializer cannot express; most custom scopes are an ``ObjectScope`` with a storage factory.
public protocol ObjectScopeProtocol: AnyObject {
    /// Makes the storage for one registration. Called once per registration, on first use.
    func makeStorage() -> any InstanceStorage
}

/// The lifetime of resolved instances: how long a registration's instance is shared.
///
/// | scope | one instance per | released |
/// |---|---|---|
/// | ``transient`` | resolve | never held |
/// | ``graph`` (default) | top-level `resolve` call, shared by everything it resolves | when the call returns |
/// | ``container`` | container hierarchy (a parent's instance is shared with its children) | on `resetObjectScope`, re-registration or `removeAll` |
/// | ``weak`` | while something else holds it | when the last strong reference goes |
/// | ``multiton`` | registration and distinct runtime arguments | on `resetObjectScope`, `dispose()`, re-registration or `removeAll` |
///
/// ```swift
/// container.register(Database.self) { _ in SQLiteDatabase() }
///     .inObjectScope(.container)
/// ```
///
/// A custom scope keeps instances in the ``InstanceStorage`` its factory makes:
///
/// ```swift
/// let session = ObjectScope(storageFactory: PermanentStorage.init, description: "session")
/// container.register(Cart.self) { _ in Cart() }.inObjectScope(session)
/// container.resetObjectScope(session) // at logout
/// ```
public final class ObjectScope: ObjectScopeProtocol, CustomStringConvertible, @unchecked Sendable {
    // @unchecked: every stored property is a `let`; the storage factory is only called by a
    // container while it resolves, which a synchronized view serializes.

    /// The name used in descriptions and status reports.
    public let description: String
    let kind: ScopeKind
    /// Whether a `.container`-kind scope shares value-type instances too, or only class instances.
    let sharesValues: Bool
    private let storageFactory: () -> any InstanceStorage
    private let parent: (any ObjectScopeProtocol)?

    /// Creates a custom scope.
    ///
    /// - Parameters:
    ///   - storageFactory: Makes the storage for one registration.
    ///   - description: The name shown in descriptions and status reports.
    ///   - parent: A scope whose storage is combined with this one's: an instance is looked up in both
    ///     and stored in both, as ``weak`` combines weak storage with ``graph``.
    public init(
        storageFactory: @escaping () -> any InstanceStorage,
        description: String = "",
        parent: (any ObjectScopeProtocol)? = nil
    ) {
        self.storageFactory = storageFactory
        self.description = description
        self.parent = parent
        self.kind = .custom
        self.sharesValues = true
    }

    private init(
        builtIn kind: ScopeKind,
        description: String,
        sharesValues: Bool = true,
        storageFactory: @escaping () -> any InstanceStorage,
        parent: (any ObjectScopeProtocol)? = nil
    ) {
        self.storageFactory = storageFactory
        self.description = description
        self.parent = parent
        self.kind = kind
        self.sharesValues = sharesValues
    }

    /// Makes the storage for one registration.
    ///
    /// The built-in scopes do not use it when a container resolves: their instances live in the
    /// registration itself, typed, so a cached resolve costs no cast and no allocation. It returns an
    /// equivalent public storage for code that calls it directly.
    public func makeStorage() -> any InstanceStorage {
        guard let parent else { return storageFactory() }
        return CompositeStorage([storageFactory(), parent.makeStorage()])
    }

    /// A new instance for every resolve; nothing is held.
    public static let transient = ObjectScope(
        builtIn: .transient,
        description: "transient",
        storageFactory: TransientStorage.init
    )

    /// One instance per top-level `resolve` call: everything resolved while serving that call shares it.
    /// The default scope.
    public static let graph = ObjectScope(builtIn: .graph, description: "graph", storageFactory: GraphStorage.init)

    /// One instance per container hierarchy, created on first resolve: a singleton. A child container
    /// shares the instance of a registration that lives in its parent.
    public static let container = ObjectScope(
        builtIn: .container,
        description: "container",
        storageFactory: PermanentStorage.init
    )

    /// Shared while something outside the container holds a strong reference to it, and within one
    /// top-level resolve. Value types are not shared across resolves.
    public static let weak = ObjectScope(
        builtIn: .weak,
        description: "weak",
        storageFactory: WeakStorage.init,
        parent: ObjectScope.graph
    )

    /// One instance per registration and per distinct runtime arguments, compared as `AnyHashable`: a
    /// cache of instances keyed by the values they were made from.
    ///
    /// ```swift
    /// container.register(Session.self) { _, userID in Session(userID: userID) }
    ///     .inObjectScope(.multiton)
    /// container.resolve(Session.self, argument: 42) === container.resolve(Session.self, argument: 42) // true
    /// ```
    ///
    /// The instances are held by the container that holds the registration, as ``container``'s are,
    /// until `resetObjectScope(.multiton)` or `dispose()`. Every argument must be `Hashable`: a resolve
    /// with one that is not fails with ``DIError/invalidUsage(message:)`` naming its type. Arguments are
    /// compared as `AnyHashable` compares them, so one that is not equal to itself (`Double.nan`) never
    /// finds an earlier instance: each such resolve creates one, kept and disposed of like the others.
    /// Without arguments it behaves as ``container``.
    public static let multiton = ObjectScope(
        builtIn: .multiton,
        description: "multiton",
        storageFactory: PermanentStorage.init
    )

    /// Like ``container`` for class instances; a value type is created anew on every resolve. The scope of
    /// the facades' `.global` resolves.
    static let sharedReferences = ObjectScope(
        builtIn: .container,
        description: "global",
        sharesValues: false,
        storageFactory: PermanentStorage.init
    )
}

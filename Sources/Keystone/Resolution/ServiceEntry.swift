public import Foundation

/// One registration: its factory, its scope, the instances the scope keeps, and the actions run
/// after each new instance is created.
///
/// `register` returns the entry so that it can be configured by chaining:
///
/// ```swift
/// container.register(Person.self) { _ in PetOwner() }
///     .inObjectScope(.container)
///     .initCompleted { resolver, person in
///         (person as! PetOwner).pet = resolver.resolve(Animal.self)
///     }
///     .implements(Greeter.self)
/// ```
///
/// > Warning: Configure an entry right after registering it, before the container is resolved from
/// > other threads: an entry is not itself synchronized.
public final class ServiceEntry<Service> {
    /// The key the entry is registered under.
    public let key: ServiceKey
    /// When the entry was registered.
    public let registeredAt: Date
    weak var container: Container?

    private let plainFactory: ((any Resolver) throws -> Service)?
    private let argumentFactory: AnyObject?

    /// The scope that decides how long a resolved instance is shared.
    public private(set) var objectScope: any ObjectScopeProtocol
    var kind: ScopeKind
    /// Whether a `.container`-kind scope keeps value-type instances (see `ObjectScope.sharesValues`).
    var sharesValues: Bool
    private var storage: (any InstanceStorage)?

    /// The `.container`-scoped instance.
    var instance: Service?
    /// The `.weak`-scoped instance, when it is an object.
    weak var weakObject: AnyObject?
    /// The instance of the graph whose serial number is `graphEpoch`.
    var graphInstance: Service?
    var graphEpoch: UInt64 = 0

    private(set) var initCompletedActions: [(any Resolver, Service) throws -> Void] = []

    /// How many resolves reached this entry: counted on every path, including cached ones.
    var resolutionCount = 0
    /// How many resolutions of this entry are creating an instance right now (cycle detection).
    var activeFrames = 0

    init(
        key: ServiceKey,
        scope: any ObjectScopeProtocol,
        plainFactory: ((any Resolver) throws -> Service)?,
        argumentFactory: AnyObject?
    ) {
        self.key = key
        self.registeredAt = Date()
        self.objectScope = scope
        self.kind = ScopeKind(scope)
        self.sharesValues = (scope as? ObjectScope)?.sharesValues ?? true
        self.plainFactory = plainFactory
        self.argumentFactory = argumentFactory
    }

    /// Specifies how long a resolved instance is shared. The default is the container's
    /// `defaultObjectScope`, itself ``ObjectScope/graph`` unless set.
    ///
    /// Changing the scope discards an instance the previous scope held.
    ///
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func inObjectScope(_ objectScope: ObjectScope) -> Self {
        inObjectScope(objectScope as any ObjectScopeProtocol)
    }

    /// Specifies how long a resolved instance is shared, with a scope of your own.
    ///
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func inObjectScope(_ objectScope: any ObjectScopeProtocol) -> Self {
        discardInstance()
        self.objectScope = objectScope
        kind = ScopeKind(objectScope)
        sharesValues = (objectScope as? ObjectScope)?.sharesValues ?? true
        storage = nil
        return self
    }

    /// Adds an action to run right after the factory creates a new instance, before it is returned.
    ///
    /// The instance is already stored in its scope when the action runs, so resolving something that
    /// resolves this entry again returns this instance: that is how two objects that need each other
    /// are wired up without a cycle. Actions run in the order they were added.
    ///
    /// ```swift
    /// container.register(Parent.self) { _ in Parent() }
    ///     .initCompleted { r, parent in parent.child = r.resolve(Child.self) }
    /// container.register(Child.self) { r in Child(parent: r.resolve(Parent.self)!) }
    /// ```
    ///
    /// An action may throw; the resolve then fails with ``DIError/factoryFailed(key:path:underlying:)``.
    ///
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func initCompleted(_ completed: @escaping (any Resolver, Service) throws -> Void) -> Self {
        initCompletedActions.append(completed)
        return self
    }

    /// Runs the factory.
    func make<Arguments>(_ resolver: any Resolver, _ arguments: Arguments) throws -> Service {
        if let plainFactory {
            return try plainFactory(resolver)
        }
        // The key this entry was found under includes `Arguments`, so the box has exactly this type.
        let box = unsafeDowncast(argumentFactory.unsafelyUnwrapped, to: ArgumentFactory<Service, Arguments>.self)
        return try box.body(resolver, arguments)
    }

    /// The custom scope's storage, made on first use.
    func customStorage() -> any InstanceStorage {
        if let storage {
            return storage
        }
        let made = objectScope.makeStorage()
        storage = made
        return made
    }
}

/// A factory that takes runtime arguments, boxed so that an entry can hold it without knowing the
/// argument types and get it back without a dynamic cast.
final class ArgumentFactory<Service, Arguments> {
    let body: (any Resolver, Arguments) throws -> Service

    init(_ body: @escaping (any Resolver, Arguments) throws -> Service) {
        self.body = body
    }
}

/// What the engine needs of an entry without knowing its service type.
protocol AnyServiceEntry: AnyObject {
    var key: ServiceKey { get }
    var objectScope: any ObjectScopeProtocol { get }
    var registeredAt: Date { get }
    var resolutionCount: Int { get set }
    var activeFrames: Int { get set }
    var initCompletedCount: Int { get }
    /// Whether an instance is held now (a `.graph` instance counts only while its graph is resolved).
    var holdsInstance: Bool { get }
    /// Whether a second resolve in the same graph returns the instance the first one created.
    var reusesInstanceInGraph: Bool { get }
    /// Forgets the instance the scope holds (`resetObjectScope`, re-registration, `removeAll`).
    func discardInstance()
    /// Ends the graph being resolved: hands the graph's instance to `record` (weakly) and drops it.
    func completeGraph(remembering record: GraphRecord?)
    /// The line a container's description prints for this entry registered (or forwarded) under `key`.
    func describe(as key: ServiceKey) -> String
    /// The scope's name, for reports and graphs.
    var objectScopeName: String { get }
    /// Resolves this entry, which takes no runtime arguments, as a root of `verify()`'s exploration.
    func resolveForInspection(as key: ServiceKey, in container: Container) throws(DIError)
    /// Resolves this entry for a key forwarded to it, as `Any`.
    func resolveForwarded<Arguments>(
        as key: ServiceKey,
        arguments: Arguments,
        state: ResolutionState,
        resolver: any Resolver
    ) throws(DIError) -> Any
}

extension ServiceEntry: AnyServiceEntry {
    var initCompletedCount: Int {
        initCompletedActions.count
    }

    var holdsInstance: Bool {
        switch kind {
        case .transient: false
        case .container: instance != nil
        case .weak: weakObject != nil
        case .graph: graphInstance != nil
        case .custom: storage?.instance != nil
        }
    }

    var reusesInstanceInGraph: Bool {
        kind != .transient
    }

    func discardInstance() {
        instance = nil
        weakObject = nil
        if kind == .custom {
            // A custom storage may hold an instance it was given directly, before any resolve.
            customStorage().instance = nil
        }
    }

    func completeGraph(remembering record: GraphRecord?) {
        if let graphInstance {
            record?.remember(graphInstance, for: ObjectIdentifier(self))
            self.graphInstance = nil
        }
        if kind == .custom {
            storage?.graphResolutionCompleted()
        }
    }

    func resolveForwarded<Arguments>(
        as key: ServiceKey,
        arguments: Arguments,
        state: ResolutionState,
        resolver: any Resolver
    ) throws(DIError) -> Any {
        try state.resolve(self, as: key, arguments: arguments, resolver: resolver)
    }

    var objectScopeName: String {
        String(describing: objectScope)
    }

    func resolveForInspection(as key: ServiceKey, in container: Container) throws(DIError) {
        let state = container.hierarchy.state
        state.noteRequest(key, scope: objectScopeName)
        _ = try state.withCall { () throws(DIError) in
            try state.resolve(self, as: key, arguments: (), resolver: container)
        }
    }

    /// `{ Service: Animal, Name: "cat", Factory: (Resolver, String) -> Animal, ObjectScope: graph }`,
    /// the line a container's description prints for the entry registered under `key`.
    func describe(as key: ServiceKey) -> String {
        var text = "Service: \(key.serviceType)"
        if let name = key.name {
            text += ", Name: \"\(name)\""
        }
        let resolverAndArguments: String
        if key.takesArguments {
            let arguments = key.argumentsDescription.dropFirst().dropLast()
            resolverAndArguments = "(Resolver, \(arguments))"
        } else {
            resolverAndArguments = "Resolver"
        }
        text += ", Factory: \(resolverAndArguments) -> \(key.serviceType)"
        text += ", ObjectScope: \(objectScope)"
        if !initCompletedActions.isEmpty {
            text += ", InitCompleted: Specified \(initCompletedActions.count) closures"
        }
        return text
    }
}

// The operations a sequence is made of.

public enum ScopeKind: Int, Sendable, CaseIterable {
    case transient, graph, container, weak
    public var swiftName: String { ".\(self)" }
}

/// A runtime argument's type. `pair` is the tuple `(Int, String)`, passed as ONE argument.
public enum ArgType: Sendable, Hashable, CaseIterable {
    case int, string, bool, pair
}

public enum ArgValue: Sendable, Hashable {
    case int(Int), string(String), bool(Bool), pair(Int, String)

    public var type: ArgType {
        switch self {
        case .int: .int
        case .string: .string
        case .bool: .bool
        case .pair: .pair
        }
    }

    public var swiftLiteral: String {
        switch self {
        case .int(let i): "\(i)"
        case .string(let s): "\"\(s)\""
        case .bool(let b): "\(b)"
        case .pair(let i, let s): "(\(i), \"\(s)\")"
        }
    }
}

/// A resolve: the service type index, name and arguments.
public struct Request: Sendable, Hashable {
    public var service: Int
    public var name: String?
    public var args: [ArgValue]
}

public struct Forward: Sendable, Hashable {
    public var service: Int
    public var name: String?
}

public struct Registration: Sendable, Hashable {
    /// Unique within a sequence; every instance records it as `madeBy`.
    public var id: Int
    public var container: Int
    public var service: Int
    public var kind: Kind
    public var name: String?
    public var args: [ArgType]
    public var scope: ScopeKind
    public var initCompleted: Bool
    public var forwards: [Forward]
    /// Resolved, in order, through the resolver handed to the factory.
    public var deps: [Request]
}

public enum Step: Sendable, Hashable {
    /// Creates container number `containers.count` as a child of `parent`.
    case child(parent: Int)
    case register(Registration)
    /// Resolves from container `container`; keeps the instance in `held` when `hold`.
    case resolve(container: Int, Request, hold: Bool)
    /// Releases `held[index % held.count]`, if anything is held.
    case drop(index: Int)
    case removeAll(container: Int)
    /// `resetObjectScope(scope)`, or `resetObjectScope(scope, serviceType:)` when `service` is set.
    case reset(container: Int, ScopeKind, service: Int?)
    /// Makes a synchronized view of container `container`; its later resolves go through the view.
    case synchronize(container: Int)
}

/// The container indices a step refers to, rewritten so that each refers to an existing container
/// (`index % count`): keeps a sequence well-formed after the shrinker removed a `child` step.
public func normalized(_ steps: [Step]) -> [Step] {
    var count = 1
    func fix(_ c: Int) -> Int { c < count ? c : c % count }
    return steps.map { step in
        switch step {
        case .child(let p):
            defer { count += 1 }
            return .child(parent: fix(p))
        case .register(var r):
            r.container = fix(r.container)
            return .register(r)
        case .resolve(let c, let q, let hold): return .resolve(container: fix(c), q, hold: hold)
        case .drop: return step
        case .removeAll(let c): return .removeAll(container: fix(c))
        case .reset(let c, let s, let t): return .reset(container: fix(c), s, service: t)
        case .synchronize(let c): return .synchronize(container: fix(c))
        }
    }
}

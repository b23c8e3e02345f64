/// A position in the checked files.
struct Location: Sendable, Equatable, Comparable {
    /// The index of the file in checking order.
    var file: Int
    var line: Int
    var column: Int

    static func < (lhs: Location, rhs: Location) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }
}

/// A name as the source gives it: absent, a literal, or something only known at run time.
enum NameSpec: Sendable, Equatable, Hashable {
    case none
    case literal(String)
    case unknown
}

/// A service type as the source gives it.
enum TypeSpec: Sendable, Equatable {
    /// Spelled out: the canonical spelling.
    case exact(String)
    /// Involving generic parameters: every type of that shape.
    case shaped(TypePattern)
    /// Not known from the source at all (a type held in a variable).
    case unknown

    var pattern: TypePattern {
        switch self {
        case .exact(let text): TypePattern(spelling: text, unknown: [])
        case .shaped(let pattern): pattern
        case .unknown: .anything
        }
    }
}

/// The key the check compares: the type's canonical spelling, the name and the number of runtime
/// arguments (their types are not compared: the source rarely spells the static types of the values
/// a resolve passes).
struct Key: Sendable, Hashable, CustomStringConvertible {
    var type: String
    var name: String?
    var argumentCount: Int

    /// `Animal named "cat" with 1 argument`.
    var description: String {
        var text = type
        if let name {
            text += " named \"\(name)\""
        }
        if argumentCount == 1 {
            text += " with 1 argument"
        } else if argumentCount > 1 {
            text += " with \(argumentCount) arguments"
        }
        return text
    }
}

/// How a registration's factory runs.
enum FactoryKind: Sendable, Equatable {
    case synchronous
    case asynchronous
    case mainActor
}

/// A registration's object scope as far as the source shows it.
enum ScopeSpec: Sendable, Equatable {
    /// `.inObjectScope(.container)` chained at the registration.
    case container
    /// Some other scope, or the container's default one.
    case other
    /// Set where the check cannot follow (a variable, an entry kept for later, a non-default default).
    case unknown
}

/// One call of `register`, `registerAsync` or `register(_:name:mainActorFactory:)`.
struct RegistrationSite: Sendable {
    var location: Location
    var type: TypeSpec
    var name: NameSpec
    /// `nil` when the factory is not a closure literal.
    var argumentCount: Int?
    var kind: FactoryKind
    var inLoop: Bool
    var scope: ScopeSpec
    /// Types forwarded with `implements`, each with its name.
    var forwarded: [(type: TypeSpec, name: NameSpec)]
    /// The function (or file) the registration is made in: where a key is registered more than once,
    /// a resolve is taken to reach the registration made next to its own.
    var enclosingScope: String
    /// The receiver of the `register` call as written (`container`, `c`, `self.container`; empty
    /// when implicit): two receivers spelled differently in one function are taken for two containers.
    var receiver: String = ""
    /// The branches around the registration (of `#if`, `if` and `switch`), as the branching
    /// statement's position and the branch's number: two registrations in different branches of one
    /// statement are not both made in one pass.
    var conditions: [Int: Int] = [:]

    /// Whether both registrations can be made in one build.
    func canRun(with other: RegistrationSite) -> Bool {
        guard location.file == other.location.file else { return true }
        return !conditions.contains { position, clause in
            other.conditions[position].map { $0 != clause } ?? false
        }
    }

    /// The key, when the source decides all of it.
    var exactKey: Key? {
        guard case .exact(let type) = type, let argumentCount, !inLoop else { return nil }
        switch name {
        case .none: return Key(type: type, name: nil, argumentCount: argumentCount)
        case .literal(let name): return Key(type: type, name: name, argumentCount: argumentCount)
        case .unknown: return nil
        }
    }
}

/// Where a resolve sits in a registration.
enum ResolveRole: Sendable, Equatable {
    /// In the factory's body itself.
    case factoryBody
    /// In a closure or function nested in the factory (it may run later, or elsewhere).
    case nestedInFactory
    /// In the registration's `initCompleted` action.
    case initCompleted
    /// In a closure or function nested in the `initCompleted` action.
    case nestedInInitCompleted
}

/// One checkable call of `resolve`, `resolveThrows`, `resolveResult` or `resolveAsync` on a factory's
/// resolver.
struct ResolveSite: Sendable {
    var location: Location
    var registration: Int
    var role: ResolveRole
    var isAsync: Bool
    var key: Key
    /// The `#if` clauses around the resolve, each as `if:COND` (the first clause of an `#if`), `not:COND`
    /// (the `#else` of an `#if` with no `#elseif`) or by position: the builds that make the resolve.
    var configuration: Set<String> = []
}

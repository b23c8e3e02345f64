// What a subject (one library behind an adapter) must do, and the argument dispatch the adapters share.

/// One library behind an adapter. The core calls it with plain descriptions; the adapter makes the
/// library calls with the concrete service and argument types.
public protocol Engine: AnyObject {
    associatedtype Handle
    /// The library's name, as printed in reports.
    var name: String { get }
    func makeContainer(parent: Handle?) -> Handle
    /// Registers `service` (under `name`, taking arguments of `args` types) in `scope`, with an
    /// `initCompleted` calling `initCompleted` if set, forwarded to each of `forwards` by `implements`.
    /// The factory is handed a function resolving a request through the factory's own resolver.
    func register(
        in container: Handle,
        service: Any.Type,
        name: String?,
        args: [ArgType],
        scope: ScopeKind,
        initCompleted: (() -> Void)?,
        forwards: [(type: Any.Type, name: String?)],
        factory: @escaping (_ resolve: (Request) -> Any?) -> Any
    )
    func resolve(in container: Handle, service: Any.Type, name: String?, args: [ArgValue]) -> Any?
    func removeAll(in container: Handle)
    func resetObjectScope(in container: Handle, _ scope: ScopeKind, serviceType: Any.Type?)
    /// Makes a synchronized view of `container`, through which its later resolves go.
    func synchronize(_ container: Handle)
}

/// Something the adapters implement once per argument count; `dispatch` calls it with the concrete
/// service type and argument values (their static types are the argument types of the key).
public protocol ArgumentVisitor {
    associatedtype Result
    func visit<S>(_ service: S.Type) -> Result
    func visit<S, A>(_ service: S.Type, _ a: A) -> Result
    func visit<S, A, B>(_ service: S.Type, _ a: A, _ b: B) -> Result
    func visit<S, A, B, C>(_ service: S.Type, _ a: A, _ b: B, _ c: C) -> Result
}

/// The argument types that can be opened from an existential; the tuple `(Int, String)` is passed as is.
protocol Arg {}
extension Int: Arg {}
extension String: Arg {}
extension Bool: Arg {}

extension ArgType {
    /// A value of this type (for registering: only its type matters).
    public var sample: ArgValue {
        switch self {
        case .int: .int(0)
        case .string: .string("")
        case .bool: .bool(false)
        case .pair: .pair(0, "")
        }
    }
}

extension ArgValue {
    var boxed: any Arg {
        switch self {
        case .int(let i): i
        case .string(let s): s
        case .bool(let b): b
        case .pair: fatalError("a pair is only ever the single argument")
        }
    }
}

/// Calls `visitor` with `service` opened to its static type and `args` to theirs.
public func dispatch<V: ArgumentVisitor>(_ visitor: V, service: Any.Type, args: [ArgValue]) -> V.Result {
    func open<S>(_ s: S.Type) -> V.Result {
        switch args.count {
        case 0: return visitor.visit(s)
        case 1:
            if case .pair(let i, let str) = args[0] { return visitor.visit(s, (i, str)) }
            return open1(s, args[0].boxed)
        case 2: return open2(s, args[0].boxed, args[1].boxed)
        case 3: return open3(s, args[0].boxed, args[1].boxed, args[2].boxed)
        default: fatalError("at most 3 arguments")
        }
    }
    func open1<S, A: Arg>(_ s: S.Type, _ a: A) -> V.Result { visitor.visit(s, a) }
    func open2<S, A: Arg, B: Arg>(_ s: S.Type, _ a: A, _ b: B) -> V.Result { visitor.visit(s, a, b) }
    func open3<S, A: Arg, B: Arg, C: Arg>(_ s: S.Type, _ a: A, _ b: B, _ c: C) -> V.Result {
        visitor.visit(s, a, b, c)
    }
    return open(service)
}

/// The identity of a registration: the service type, the registration name, and the number and types
/// of the runtime arguments its factory takes.
///
/// Two registrations with equal keys cannot coexist in one container: the later one replaces the
/// earlier. A resolve finds a registration only when all three parts match exactly, so a factory
/// registered with a `String` argument is not found by a resolve that passes an `NSString` or a
/// `String?`. The number of arguments counts too: a factory taking one argument of tuple type `(A, B)`
/// and one taking two arguments `A` and `B` are two registrations, and so are a factory taking one
/// `Void` argument and one taking none.
///
/// Keys appear in every ``DIError`` so that a failure names exactly what was asked for:
///
/// ```swift
/// let key = ServiceKey(serviceType: Animal.self, name: "cat", argumentsType: String.self)
/// print(key) // Animal named "cat" with arguments (String)
/// ```
public struct ServiceKey: Hashable, Sendable, CustomStringConvertible {
    /// The type the registration is resolved as, usually a protocol.
    public let serviceType: Any.Type
    /// The registration name, or `nil` for an unnamed registration.
    public let name: String?
    /// The metadata pointer of the argument types, with its lowest bit (always clear in an aligned
    /// pointer) set when the factory takes exactly one argument: the argument types and their count in one
    /// word, so that a key stays four words long and is compared with one comparison. A five-word key
    /// (the type and a separate count) costs rows `named` +24%, `chain` +20%, `transient` +16%
    /// instructions.
    @usableFromInline let argumentsWord: UInt

    /// The types of the factory's runtime arguments: `Void` for none, the type itself for one,
    /// a tuple such as `(String, Bool)` for several.
    public var argumentsType: Any.Type {
        unsafeBitCast(argumentsWord & ~1, to: Any.Type.self)
    }

    /// How many runtime arguments the factory takes: 0 for none, 1 for one (whatever its type, a tuple
    /// or `Void` included), the tuple's element count for several.
    public var argumentCount: Int {
        isSingleArgument ? 1 : Self.elementCount(of: argumentsType)
    }

    /// Whether the factory takes exactly one argument.
    @inlinable
    var isSingleArgument: Bool {
        argumentsWord & 1 == 1
    }

    /// Creates a key with an explicit argument count.
    ///
    /// ```swift
    /// // A factory taking one argument that is itself a pair:
    /// let key = ServiceKey(serviceType: Route.self, argumentsType: (Int, Int).self, argumentCount: 1)
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The type the registration is resolved as.
    ///   - name: The registration name, or `nil`.
    ///   - argumentsType: `Void.self` for a factory without runtime arguments, the argument's type for
    ///     one argument, or the tuple of the argument types for several.
    ///   - argumentCount: The number of runtime arguments: 1 marks a single argument, whatever its type;
    ///     any other count is the one `argumentsType` implies (0 for `Void`, a tuple's element count).
    @inlinable
    public init(serviceType: Any.Type, name: String? = nil, argumentsType: Any.Type, argumentCount: Int) {
        self.serviceType = serviceType
        self.name = name
        self.argumentsWord = UInt(bitPattern: ObjectIdentifier(argumentsType)) | (argumentCount == 1 ? 1 : 0)
    }

    /// Creates a key, counting the arguments from `argumentsType`: none for `Void`, the element count of
    /// a tuple type, one for any other type.
    ///
    /// ```swift
    /// let key = ServiceKey(serviceType: Animal.self, name: "cat", argumentsType: String.self)
    /// ```
    ///
    /// > Warning: A factory that takes a single argument of tuple or `Void` type needs
    /// > ``init(serviceType:name:argumentsType:argumentCount:)`` with `argumentCount: 1`.
    ///
    /// - Parameters:
    ///   - serviceType: The type the registration is resolved as.
    ///   - name: The registration name, or `nil`.
    ///   - argumentsType: `Void.self` for a factory without runtime arguments, the argument's type for
    ///     one argument, or the tuple of the argument types for several.
    public init(serviceType: Any.Type, name: String? = nil, argumentsType: Any.Type = Void.self) {
        self.init(
            serviceType: serviceType,
            name: name,
            argumentsType: argumentsType,
            argumentCount: Self.elementCount(of: argumentsType)
        )
    }

    /// The key of a resolve of `Service` under `name` passing `argumentCount` arguments packed as
    /// `Arguments`.
    @inlinable
    static func of<Service, Arguments>(
        _: Service.Type,
        name: String?,
        _: Arguments.Type,
        _ argumentCount: Int
    ) -> ServiceKey {
        ServiceKey(serviceType: Service.self, name: name, argumentsType: Arguments.self, argumentCount: argumentCount)
    }

    /// The same key for another service type: the key of a wrapper (`Lazy`, `Optional`) or of a
    /// forwarded type.
    @inlinable
    func with(serviceType: Any.Type) -> ServiceKey {
        with(serviceType: serviceType, name: name)
    }

    /// The key of the same arguments for another service type and name: a key forwarded to this one.
    @inlinable
    func with(serviceType: Any.Type, name: String?) -> ServiceKey {
        ServiceKey(serviceType: serviceType, name: name, argumentsWord: argumentsWord)
    }

    @inlinable
    init(serviceType: Any.Type, name: String?, argumentsWord: UInt) {
        self.serviceType = serviceType
        self.name = name
        self.argumentsWord = argumentsWord
    }

    /// Whether `other`, a key of the same service type, has the same name and arguments.
    func matches(_ other: ServiceKey) -> Bool {
        argumentsWord == other.argumentsWord && name == other.name
    }

    /// Whether the factory behind this key takes runtime arguments.
    public var takesArguments: Bool {
        isSingleArgument || argumentsType != Void.self
    }

    /// Whether two keys have the same service type, argument types and count, and name.
    public static func == (lhs: ServiceKey, rhs: ServiceKey) -> Bool {
        lhs.serviceType == rhs.serviceType && lhs.argumentsWord == rhs.argumentsWord && lhs.name == rhs.name
    }

    /// Hashes the service type, the argument types and count, and the name.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(serviceType))
        hasher.combine(argumentsWord)
        hasher.combine(name)
    }

    /// The number of elements of a tuple type as its name shows it (`(Int, String)` has two, `()` none),
    /// or 1 for any other type. Only keys made by hand need it: the engine knows each call's count.
    static func elementCount(of type: Any.Type) -> Int {
        if type == Void.self {
            return 0
        }
        let name = Array(String(describing: type))
        guard name.first == "(" else { return 1 }
        var depth = 0
        var commas = 0
        for (offset, character) in name.enumerated() {
            switch character {
            case "(", "<", "[":
                depth += 1
            case ">" where offset > 0 && name[offset - 1] == "-":
                break  // the arrow of a function type
            case ")", ">", "]":
                depth -= 1
                // A parenthesis closed before the end: a function type such as `(Int) -> Int`.
                if depth == 0, offset != name.count - 1 {
                    return 1
                }
            case "," where depth == 1:
                commas += 1
            default:
                break
            }
        }
        return commas + 1
    }

    /// The key as a reader would write it, for example `Animal named "cat" with arguments (String)`.
    public var description: String {
        var text = String(describing: serviceType)
        if let name {
            text += " named \"\(name)\""
        }
        if takesArguments {
            text += " with arguments \(argumentsDescription)"
        }
        return text
    }

    /// The argument types in parentheses: `()`, `(String)` or `(String, Bool)`; a single argument of
    /// tuple type keeps its own parentheses: `((Int, Int))`.
    var argumentsDescription: String {
        let rendered = String(describing: argumentsType)
        if isSingleArgument || !rendered.hasPrefix("(") {
            return "(\(rendered))"
        }
        return rendered
    }
}

/// The identity of a registration: the service type, the registration name and the types of the
/// runtime arguments its factory takes.
///
/// Two registrations with equal keys cannot coexist in one container: the later one replaces the
/// earlier. A resolve finds a registration only when all three parts match exactly, so a factory
/// registered with a `String` argument is not found by a resolve that passes an `NSString` or a
/// `String?`.
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
    /// The types of the factory's runtime arguments: `Void` for none, the type itself for one,
    /// a tuple such as `(String, Bool)` for several.
    public let argumentsType: Any.Type

    /// Creates a key.
    ///
    /// - Parameters:
    ///   - serviceType: The type the registration is resolved as.
    ///   - name: The registration name, or `nil`.
    ///   - argumentsType: `Void.self` for a factory without runtime arguments, the argument's type for
    ///     one argument, or the tuple of the argument types for several.
    @inlinable
    public init(serviceType: Any.Type, name: String? = nil, argumentsType: Any.Type = Void.self) {
        self.serviceType = serviceType
        self.name = name
        self.argumentsType = argumentsType
    }

    /// Whether the factory behind this key takes runtime arguments.
    public var takesArguments: Bool {
        argumentsType != Void.self
    }

    public static func == (lhs: ServiceKey, rhs: ServiceKey) -> Bool {
        lhs.serviceType == rhs.serviceType && lhs.argumentsType == rhs.argumentsType && lhs.name == rhs.name
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(serviceType))
        hasher.combine(ObjectIdentifier(argumentsType))
        hasher.combine(name)
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

    /// The argument types in parentheses: `()`, `(String)` or `(String, Bool)`.
    var argumentsDescription: String {
        let rendered = String(describing: argumentsType)
        return rendered.hasPrefix("(") ? rendered : "(\(rendered))"
    }
}

/// Something told about every registration a container makes, for extensions that act on
/// registrations (logging them, registering companions).
///
/// ```swift
/// final class RegistrationLog: Behavior {
///     func container<Type, Service>(
///         _ container: Container,
///         didRegisterType type: Type.Type,
///         toService entry: ServiceEntry<Service>,
///         withName name: String?
///     ) {
///         print("registered \(type)")
///     }
/// }
/// let container = Container(behaviors: [RegistrationLog()])
/// ```
public protocol Behavior {
    /// Called after `type` was registered, or forwarded, to `entry` under `name`.
    func container<Type, Service>(
        _ container: Container,
        didRegisterType type: Type.Type,
        toService entry: ServiceEntry<Service>,
        withName name: String?
    )
}

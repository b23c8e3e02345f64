/// A group of related registrations, applied to a container by an ``Assembler``.
///
/// ```swift
/// struct NetworkAssembly: Assembly {
///     func assemble(container: Container) {
///         container.register(HTTPClient.self) { _ in URLSessionClient() }.inObjectScope(.container)
///     }
/// }
/// ```
public protocol Assembly {
    /// Registers the assembly's services on `container`.
    func assemble(container: Container)

    /// Called after every assembly applied together has registered, with the resolver of the
    /// assembled container. Does nothing unless implemented.
    func loaded(resolver: any Resolver)
}

extension Assembly {
    /// Does nothing.
    public func loaded(resolver: any Resolver) {}
}

/// What a front (``Registry``, ``DependencyRegistry``) records about a registration it made, kept on the
/// engine's entry itself (`ServiceEntry.front`).
///
/// The fronts keep no index of their own: the container's table is the one list of registrations. A
/// front finds what it made by walking that table and reading this record, so a registration that is
/// replaced or removed goes, with everything its factory captured, as soon as the engine drops it.
///
/// It holds no reference to the entry, nor anything that captures it. It is read and written only under
/// the hierarchy's lock.
@usableFromInline
struct FrontRecord {
    /// The front that made a registration.
    enum Maker {
        /// A ``RegistryModule``'s `register`, `lazy`, `eager` or `override`.
        case registry
        /// ``DependencyRegistry/register(instantiator:)``.
        case dependencyRegistry
    }

    let maker: Maker
    /// When a ``Registry`` service is realized; `.injection` for ``DependencyRegistry``'s.
    var lifecycle: ServiceOptions.Lifecycle
    /// The order the fronts made their registrations of a container in: eager services are realized in
    /// it.
    let order: Int
    /// Resolves the registration's service from a context (eager realization). It captures the service
    /// type and id, never the entry.
    let realize: (FrontContext) -> Void

    /// Whether the record says ``Registry`` made the registration.
    var isRegistry: Bool {
        maker == .registry
    }

    /// Whether the record says ``Registry`` made the registration with the `.lazy` lifecycle.
    var isLazyRegistryService: Bool {
        maker == .registry && lifecycle == .lazy
    }
}

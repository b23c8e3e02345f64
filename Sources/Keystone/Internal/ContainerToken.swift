/// A container as its registrations see it: the container while it exists, `nil` after, and the
/// hierarchy whose lock guards the registrations' configuration.
///
/// A `ServiceEntry` holds its container's token instead of a weak reference to the container, so that
/// the container has no side table and stays cheap to retain on the resolve path. The container clears
/// the token when it is deinitialized; entries use `container` only to forward keys (`implements`), from
/// the code that registered them, which holds the container.
@usableFromInline
final class ContainerToken {
    unowned var container: Container?
    let hierarchy: Hierarchy
    /// How far below the root of its hierarchy the container is: 0 for the root, 1 for its children.
    /// A registration of a deeper container is one a shallower container's instances must not keep
    /// (`Container.validatesScopes`).
    let depth: Int

    init(hierarchy: Hierarchy, depth: Int) {
        self.hierarchy = hierarchy
        self.depth = depth
    }
}

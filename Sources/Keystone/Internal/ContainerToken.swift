/// A container as its registrations see it: the container while it exists, `nil` after.
///
/// A `ServiceEntry` holds its container's token instead of a weak reference to the container, so that
/// the container has no side table and stays cheap to retain on the resolve path. The container clears
/// the token when it is deinitialized; entries use it only to register (`implements`), which happens on
/// one thread before the container is shared.
@usableFromInline
final class ContainerToken {
    unowned(unsafe) var container: Container?
}

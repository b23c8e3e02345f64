/// Which instance a ``DependencyRegistry`` resolve or a property wrapper asks for: the shared one, or a
/// new one.
///
/// ```swift
/// let shared: Analytics = DependencyRegistry.resolve()                 // .global
/// let fresh: Analytics = DependencyRegistry.resolve(scope: .unique)    // always a new instance
///
/// final class Checkout {
///     @Inject(scope: .unique) var draft: OrderDraft
/// }
/// ```
///
/// > Warning: `.global` shares one instance only of a class. A struct or enum registered with
/// > ``DependencyRegistry`` is created anew on every resolve whatever the scope, since a copy of a value
/// > cannot be shared.
public enum Scope: Sendable, Hashable {
    /// The instance the registration shares: for ``DependencyRegistry``, one instance of a class per
    /// container, created on first resolve; for a ``Registry`` service, its one realized instance.
    case global
    /// A new instance on every resolve, never kept; its dependencies are resolved as usual. Asked for an
    /// `Optional` type (`let draft: OrderDraft? = DependencyRegistry.resolve(scope: .unique)`), it makes
    /// a new instance of the wrapped type, or gives `nil` when that is not registered.
    case unique
}

/// The fronts' bookkeeping for one container, behind that container's hierarchy lock.
final class FrontBook: @unchecked Sendable {
    // @unchecked: `state` is read and written only inside `withState`, under `hierarchy`'s recursive
    // lock, the lock that also guards the container the state describes. `hierarchy` is Sendable.

    private let hierarchy: Hierarchy
    private var state = FrontState()

    private init(hierarchy: Hierarchy) {
        self.hierarchy = hierarchy
    }

    func withState<T>(_ body: (inout FrontState) -> T) -> T {
        hierarchy.withLock { body(&state) }
    }

    /// The book of `container`, made on first use and kept by the container itself: a context made for
    /// the same container again (a second `withCurrent`) finds the same Registry startup state, and the
    /// book, with the registrations it remembers, goes when the container goes.
    static func of(_ container: Container) -> FrontBook {
        container.withHierarchyLock {
            if let book = container.frontBook as? FrontBook {
                return book
            }
            let book = FrontBook(hierarchy: container.hierarchy)
            container.frontBook = book
            return book
        }
    }
}

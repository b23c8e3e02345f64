#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The identity of a thread: for the debug-build check that an unsynchronized container is not used
/// by two threads at once.
@usableFromInline
struct ThreadIdentity {
    private let thread: pthread_t

    @usableFromInline
    static var current: ThreadIdentity {
        ThreadIdentity(thread: pthread_self())
    }

    var isCurrent: Bool {
        pthread_equal(thread, pthread_self()) != 0
    }
}

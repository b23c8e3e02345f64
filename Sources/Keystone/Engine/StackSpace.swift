import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How much stack the current thread has left, for the engine's depth limit: nested resolutions take
/// about 10 KiB of stack each in a debug build, and a secondary thread may have only 512 KiB.
enum StackSpace {
    /// Below this much stack left, a resolution does not nest further. It covers a few more levels
    /// (the engine checks every ``checkInterval`` levels), the deepest factory, and the error's report.
    static let reserve = 160 * 1024

    /// How many levels of nesting pass between two checks; the check reads the thread's stack bounds,
    /// which costs more than a level.
    static let checkInterval = 4

    /// Whether the current thread has less than ``reserve`` bytes of stack left; `false` where the
    /// bounds cannot be read, or where a local variable is not on the thread's stack: Address Sanitizer,
    /// checking for use after return, puts locals on a "fake stack" of its own, whose addresses say
    /// nothing of the thread's stack (read as one, every resolve nested 16 deep failed in such a build).
    static func isLow() -> Bool {
        var marker = 0
        let here = withUnsafeMutablePointer(to: &marker) { Int(bitPattern: $0) }
        guard let stack = bounds(), stack.contains(here) else { return false }
        return here - stack.lowerBound < reserve
    }

    #if canImport(Glibc) || canImport(Musl)
        /// `pthread_getattr_np`, which reads a running thread's attributes (its stack among them): a GNU
        /// extension the C library has but its Swift module does not declare, so it is looked up by name.
        private static let threadAttributes:
            (@convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32)? = {
                guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getattr_np") else {
                    return nil
                }
                return unsafeBitCast(
                    symbol,
                    to: (@convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32).self
                )
            }()
    #endif

    /// The addresses of the current thread's stack.
    private static func bounds() -> Range<Int>? {
        #if canImport(Darwin)
            let thread = pthread_self()
            let top = Int(bitPattern: pthread_get_stackaddr_np(thread))
            return (top - pthread_get_stacksize_np(thread))..<top
        #elseif canImport(Glibc) || canImport(Musl)
            guard let getAttributes = threadAttributes else { return nil }
            let attributes = UnsafeMutablePointer<pthread_attr_t>.allocate(capacity: 1)
            defer { attributes.deallocate() }
            guard getAttributes(pthread_self(), attributes) == 0 else { return nil }
            defer { pthread_attr_destroy(attributes) }
            var address: UnsafeMutableRawPointer?
            var size = 0
            guard pthread_attr_getstack(attributes, &address, &size) == 0, let address else { return nil }
            return Int(bitPattern: address)..<(Int(bitPattern: address) + size)
        #else
            return nil
        #endif
    }
}

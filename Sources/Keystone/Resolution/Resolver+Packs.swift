// Helpers of the parameter-pack overloads in `Resolver+Arguments.swift`, `Container+Arguments.swift` and
// `ServiceEntry+TypeForwarding.swift`.
//
// The resolves re-pack `arg1, arg2, repeat each rest` into one pure pack here rather than writing the
// tuple `(arg1, arg2, repeat each rest)` at the call: at -O a tuple mixing scalars and a pack expansion is
// laid out with element offsets computed at run time (and copied element by element), while the tuple of
// a pure pack has constant offsets, exactly like a tuple written out by hand.

/// How many types `types` holds: the runtime argument count of a registration or resolve.
@inlinable @inline(__always)
func packCount<each T>(_ types: repeat (each T).Type) -> Int {
    var count = 0
    for _ in repeat each types { count += 1 }
    return count
}

/// ``resolveFast(_:_:name:arguments:argumentCount:)`` with the arguments as one pack.
@inlinable @inline(__always)
func resolveFastPacked<R: Resolver, Service, each Arg>(
    _ resolver: R,
    _ serviceType: Service.Type,
    name: String?,
    _ arguments: repeat each Arg
) throws(DIError) -> Service {
    try resolveFast(
        resolver,
        serviceType,
        name: name,
        arguments: (repeat each arguments),
        argumentCount: packCount(repeat (each Arg).self)
    )
}

/// ``resolveOptional(_:_:name:arguments:argumentCount:)`` with the arguments as one pack.
@inlinable @inline(__always)
func resolveOptionalPacked<R: Resolver, Service, each Arg>(
    _ resolver: R,
    _ serviceType: Service.Type,
    name: String?,
    _ arguments: repeat each Arg
) -> Service? {
    resolveOptional(
        resolver,
        serviceType,
        name: name,
        arguments: (repeat each arguments),
        argumentCount: packCount(repeat (each Arg).self)
    )
}

/// ``resolveAsResult(_:_:name:arguments:argumentCount:)`` with the arguments as one pack.
@inlinable @inline(__always)
func resolveAsResultPacked<R: Resolver, Service, each Arg>(
    _ resolver: R,
    _ serviceType: Service.Type,
    name: String?,
    _ arguments: repeat each Arg
) -> Result<Service, DIError> {
    resolveAsResult(
        resolver,
        serviceType,
        name: name,
        arguments: (repeat each arguments),
        argumentCount: packCount(repeat (each Arg).self)
    )
}

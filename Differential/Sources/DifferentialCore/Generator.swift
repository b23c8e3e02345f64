// The seeded generator of sequences.

/// SplitMix64: small, fast and deterministic on every platform.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The seed of sequence number `index` of a run started from `start`.
public func sequenceSeed(start: UInt64, index: Int) -> UInt64 {
    var rng = SplitMix64(seed: start &+ UInt64(index) &* 0xD1B5_4A32_D192_ED03)
    return rng.next()
}

/// Generates a sequence of `count` steps from `seed`.
public func generate(seed: UInt64, count: Int) -> [Step] {
    var g = Generator(rng: SplitMix64(seed: seed))
    // Half the sequences make a synchronized view before registering anything: registrations then
    // happen while a view exists, as in an app that shares its container with worker threads early.
    let first: [Step] = count > 0 && g.chance(0.5) ? [.synchronize(container: 0)] : []
    return first + (0..<(count - first.count)).map { _ in g.step() }
}

struct Generator {
    var rng: SplitMix64
    var containers = 1
    var registrations: [Registration] = []

    mutating func int(_ n: Int) -> Int { Int.random(in: 0..<n, using: &rng) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
    mutating func pick<T>(_ xs: [T]) -> T { xs[int(xs.count)] }

    mutating func name() -> String? { pick([nil, nil, "a", "b"]) }
    mutating func container() -> Int { int(containers) }

    mutating func argTypes() -> [ArgType] {
        let n = pick([0, 0, 0, 0, 1, 1, 1, 2, 2, 3])
        if n == 1 && chance(0.2) { return [.pair] }
        return (0..<n).map { _ in pick([ArgType.int, .string, .bool]) }
    }

    mutating func value(_ t: ArgType) -> ArgValue {
        switch t {
        case .int: .int(int(3))
        case .string: .string(pick(["x", "y"]))
        case .bool: .bool(chance(0.5))
        case .pair: .pair(int(3), pick(["x", "y"]))
        }
    }

    /// A request, usually for a key some registration (or its forward) answers, sometimes off by a name
    /// or an argument; `below` restricts the service type (a factory's dependencies).
    mutating func request(below: Int = ServiceTypes.count) -> Request {
        typealias Key = (service: Int, name: String?, args: [ArgType])
        var keys: [Key] = []
        for r in registrations {
            if r.service < below { keys.append((r.service, r.name, r.args)) }
            for f in r.forwards where f.service < below { keys.append((f.service, f.name, r.args)) }
        }
        var key: Key = keys.isEmpty || chance(0.3) ? (int(below), name(), argTypes()) : pick(keys)
        if chance(0.1) { key.name = name() }
        if chance(0.1) {
            switch int(3) {
            case 0: key.args = argTypes()
            case 1: if !key.args.isEmpty { key.args.removeLast() }
            default:
                if key.args.count < 3 && key.args != [.pair] { key.args.append(pick([ArgType.int, .string, .bool])) }
            }
        }
        if key.args.count == 2 && key.args.first == .int && chance(0.2) {  // a tuple for two arguments
            key.args = [.pair]
        }
        return Request(service: key.service, name: key.name, args: key.args.map { value($0) })
    }

    mutating func registration() -> Registration {
        var r: Registration
        let service: Int, name: String?, args: [ArgType], container: Int
        if !registrations.isEmpty && chance(0.2) {  // re-register an existing key
            let old = pick(registrations)
            (service, name, args, container) = (old.service, old.name, old.args, old.container)
        } else {
            (service, name, args, container) = (int(ServiceTypes.count), self.name(), argTypes(), self.container())
        }
        let kind = pick(Kind.allCases.filter { $0.conforms.contains(service) })
        r = Registration(
            id: registrations.count + 1,
            container: container,
            service: service,
            kind: kind,
            name: name,
            args: args,
            scope: pick(ScopeKind.allCases),
            initCompleted: chance(0.3),
            forwards: [],
            deps: []
        )
        let targets = kind.conforms.filter { $0 > service }
        if !targets.isEmpty && chance(0.3) {
            r.forwards.append(Forward(service: pick(targets), name: chance(0.7) ? nil : self.name()))
            if chance(0.2) { r.forwards.append(Forward(service: pick(targets), name: self.name())) }
        }
        if service > 0 {
            r.deps = (0..<pick([0, 1, 1, 2, 2, 3])).map { _ in request(below: service) }
        }
        registrations.append(r)
        return r
    }

    mutating func step() -> Step {
        let roll = int(100)
        switch roll {
        case 0..<4 where containers < 5:
            defer { containers += 1 }
            return .child(parent: container())
        case 0..<34: return .register(registration())
        case 34..<82: return .resolve(container: container(), request(), hold: chance(0.4))
        case 82..<91: return .drop(index: int(8))
        case 91..<93: return .removeAll(container: container())
        case 93..<95: return .synchronize(container: container())
        default:
            return .reset(
                container: container(),
                pick(ScopeKind.allCases),
                service: chance(0.5) ? int(ServiceTypes.count) : nil
            )
        }
    }
}

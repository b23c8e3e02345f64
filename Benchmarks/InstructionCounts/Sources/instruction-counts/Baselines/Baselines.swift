// The hand-written baselines of the rows the performance targets name, not gated: each does what the
// scenario of the same name without `baseline-` does, on the wall-clock benchmark's baseline containers
// (`BaselineContainers.swift`, linked), so that `targets.sh` can give each row's ratio in instructions.

/// Runs the baseline scenario `name` (`count` operations); returns whether there is one of that name.
@inline(never) func runBaseline(_ name: String, count: Int) -> Bool {
    switch name {
    case "baseline-transient": baselineTransient(count)
    case "baseline-named": baselineNamed(count)
    case "baseline-argument": baselineArgument(count)
    case "baseline-three-arguments": baselineThreeArguments(count)
    case "baseline-failed": baselineFailed(count)
    case "baseline-multiton-hit": baselineMultitonHit(count)
    case "baseline-request-scope": baselineRequestScope(count)
    case "baseline-actor-resolve": runTask { [count] in await baselineActorResolve(count) }
    default: return false
    }
    return true
}

/// Runs `body` `count` times. (`main.swift`'s `repeatCount` reads the count parsed at its top level, which
/// code in another file may not capture.)
func repeating(_ count: Int, _ body: () -> Void) {
    for _ in 0..<count {
        body()
    }
}

/// `transient`: one hashed lookup by type and a call of the factory.
@inline(never) func baselineTransient(_ count: Int) {
    let c = BaselineContainer()
    c.register((any Service).self) { _ in Plain() }
    repeating(count) { sink(c.resolve((any Service).self)) }
}

/// `named`: one lookup keyed by type and name, the name hashed each time, and a call.
@inline(never) func baselineNamed(_ count: Int) {
    let c = BaselineNamedContainer()
    for name in names.prefix(100) {
        c.register((any Service).self, name: name) { _ in Plain() }
    }
    expect(c.resolve((any Service).self, name: names[42]) != nil, "the service named \(names[42])")
    repeating(count) { sink(c.resolve((any Service).self, name: names[42])) }
}

/// `argument`: one lookup keyed by type and argument type, and a call passing the argument.
@inline(never) func baselineArgument(_ count: Int) {
    let c = BaselineArgumentsContainer()
    c.register((any Service).self) { (_: Int) in Plain() }
    repeating(count) { sink(c.resolve((any Service).self, arguments: 7)) }
}

/// `three-arguments`: one lookup keyed by type and the arguments' tuple type, and a call passing them.
@inline(never) func baselineThreeArguments(_ count: Int) {
    let c = BaselineArgumentsContainer()
    c.register((any Service).self) { (_: (Int, String, Bool)) in Plain() }
    repeating(count) { sink(c.resolve((any Service).self, arguments: (7, "seven", true))) }
}

/// `failed`: one miss in a dictionary of 100 registrations keyed by type and name.
@inline(never) func baselineFailed(_ count: Int) {
    let c = BaselineNamedContainer()
    for name in names.prefix(100) {
        c.register((any Service).self, name: name) { _ in Plain() }
    }
    repeating(count) { sink(c.resolve(Plain.self)) }
}

/// `multiton-hit`: a dictionary of instances keyed by the argument.
@inline(never) func baselineMultitonHit(_ count: Int) {
    var instances: [Int: any Service] = [:]
    func resolve(_ argument: Int) -> any Service {
        if let kept = instances[argument] {
            return kept
        }
        let made = Plain()
        instances[argument] = made
        return made
    }
    expect(resolve(7) === resolve(7), "the instance kept for 7")
    repeating(count) { sink(resolve(7)) }
}

/// `request-scope` by hand: the app's 20 instances by name, made before; per request, the request's 3
/// factories in a dictionary by key, its instances in another, 5 resolves (the request's factories
/// resolving what they need, the app's instances looked up by name), the disposal handler run on the
/// kept instance, and both dictionaries dropped.
@inline(never) func baselineRequestScope(_ count: Int) {
    var app: [String: any Service] = [:]
    for name in names.prefix(20) {
        app[name] = Plain()
    }
    final class Request {
        let app: [String: any Service]
        var factories: [NamedKey: (Request) -> AnyObject] = [:]
        var instances: [NamedKey: AnyObject] = [:]
        init(app: [String: any Service]) { self.app = app }

        func resolve<T>(_ type: T.Type, name: String? = nil) -> T? {
            let key = NamedKey(type: ObjectIdentifier(type), name: name)
            if let kept = instances[key] {
                return unsafeDowncast(kept, to: AnyObject.self) as? T
            }
            if let factory = factories[key] {
                return factory(self) as? T
            }
            if let name, let shared = app[name] {
                return shared as? T
            }
            return nil
        }
    }
    func handle() -> Int {
        let request = Request(app: app)
        request.factories[NamedKey(type: ObjectIdentifier(Plain.self), name: nil)] = { request in
            let made = Plain()
            request.instances[NamedKey(type: ObjectIdentifier(Plain.self), name: nil)] = made
            return made
        }
        request.factories[NamedKey(type: ObjectIdentifier(Node.self), name: nil)] = { request in
            Node(next: request.resolve(Plain.self))
        }
        request.factories[NamedKey(type: ObjectIdentifier((any Service).self), name: "request")] = { request in
            Node(next: request.resolve((any Service).self, name: names[0]))
        }
        var made = 0
        if let node = request.resolve(Node.self) { sink(node); made += 1 }
        if let service = request.resolve((any Service).self, name: "request") { sink(service); made += 1 }
        if let plain = request.resolve(Plain.self) { sink(plain); made += 1 }
        if let service = request.resolve((any Service).self, name: names[1]) { sink(service); made += 1 }
        if let service = request.resolve((any Service).self, name: names[2]) { sink(service); made += 1 }
        if let plain = request.instances[NamedKey(type: ObjectIdentifier(Plain.self), name: nil)] {
            sink(plain)
        }
        request.instances.removeAll()
        request.factories.removeAll()
        return made
    }
    expect(handle() == 5, "five request resolves")
    repeating(count) { sink(handle()) }
}

/// `actor-resolve`: a hop onto an actor that holds a dictionary of entries, and a load of the kept instance.
@concurrent func baselineActorResolve(_ count: Int) async {
    let front = BaselineActorFront(entries: [ObjectIdentifier(Shared.self): BaselineEntry<Void, Shared> { Shared() }])
    let first = await front.resolve(Shared.self)
    let second = await front.resolve(Shared.self)
    expect(first != nil && first === second, "one shared instance")
    for _ in 0..<count {
        sink(await front.resolve(Shared.self))
    }
}

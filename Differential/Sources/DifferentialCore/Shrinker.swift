// Delta debugging: removes chunks of steps, then simplifies the steps left, while a divergence remains.

public func shrink(_ divergence: Divergence, check: ([Step]) -> Divergence?) -> Divergence {
    var best = divergence
    func attempt(_ candidate: [Step]) -> Bool {
        guard let found = check(candidate) else { return false }
        best = found
        return true
    }
    var changed = true
    while changed {
        changed = false
        // Remove chunks, halving their size down to single steps.
        var chunk = max(1, best.steps.count / 2)
        while true {
            var i = 0
            while i < best.steps.count {
                var candidate = best.steps
                candidate.removeSubrange(i..<min(i + chunk, candidate.count))
                if attempt(candidate) { changed = true } else { i += chunk }
            }
            if chunk == 1 { break }
            chunk /= 2
        }
        // Simplify the whole sequence: no names, then no arguments.
        for simplify in [withoutNames, withoutArguments] where simplify(best.steps) != best.steps {
            if attempt(simplify(best.steps)) { changed = true }
        }
        // Simplify each step in place.
        for i in best.steps.indices where i < best.steps.count {
            for simpler in simplifications(of: best.steps[i]) {
                var candidate = best.steps
                candidate[i] = simpler
                if attempt(candidate) { changed = true; break }
            }
        }
    }
    // Registration ids renumbered 1, 2, 3...: run again for outcomes that name them so.
    return check(renumbered(best.steps)) ?? best
}

/// Simpler versions of a step, simplest changes first.
func simplifications(of step: Step) -> [Step] {
    var out: [Step] = []
    switch step {
    case .register(let r):
        func with(_ change: (inout Registration) -> Void) {
            var s = r
            change(&s)
            if s != r { out.append(.register(s)) }
        }
        with { $0.initCompleted = false }
        for i in r.forwards.indices { with { $0.forwards.remove(at: i) } }
        for i in r.deps.indices { with { $0.deps.remove(at: i) } }
        with { $0.container = 0 }
        with { $0.args = [] }
        for i in r.deps.indices {
            with { $0.deps[i].name = nil }
            with { $0.deps[i].args = [] }
        }
    case .resolve(let c, let q, let hold):
        if hold { out.append(.resolve(container: c, q, hold: false)) }
        if c != 0 { out.append(.resolve(container: 0, q, hold: hold)) }
        if !q.args.isEmpty {
            out.append(.resolve(container: c, Request(service: q.service, name: q.name, args: []), hold: hold))
        }
    case .reset(let c, let scope, let service):
        if c != 0 { out.append(.reset(container: 0, scope, service: service)) }
    case .removeAll(let c):
        if c != 0 { out.append(.removeAll(container: 0)) }
    case .child(let p):
        if p != 0 { out.append(.child(parent: 0)) }
    case .synchronize(let c):
        if c != 0 { out.append(.synchronize(container: 0)) }
    case .drop: break
    }
    return out
}

/// Every registration, forward and request without a name.
func withoutNames(_ steps: [Step]) -> [Step] {
    func plain(_ q: Request) -> Request { Request(service: q.service, name: nil, args: q.args) }
    return steps.map { step in
        switch step {
        case .register(var r):
            r.name = nil
            r.forwards = r.forwards.map { Forward(service: $0.service, name: nil) }
            r.deps = r.deps.map(plain)
            return .register(r)
        case .resolve(let c, let q, let hold): return .resolve(container: c, plain(q), hold: hold)
        default: return step
        }
    }
}

/// Every registration and request without runtime arguments.
func withoutArguments(_ steps: [Step]) -> [Step] {
    func plain(_ q: Request) -> Request { Request(service: q.service, name: q.name, args: []) }
    return steps.map { step in
        switch step {
        case .register(var r):
            r.args = []
            r.deps = r.deps.map(plain)
            return .register(r)
        case .resolve(let c, let q, let hold): return .resolve(container: c, plain(q), hold: hold)
        default: return step
        }
    }
}

/// Registration ids renumbered 1, 2, 3... in order (they are labels only).
func renumbered(_ steps: [Step]) -> [Step] {
    var next = 0
    return steps.map { step in
        guard case .register(var r) = step else { return step }
        next += 1
        r.id = next
        return .register(r)
    }
}

/// A coarse description of a shrunk sequence, to tell distinct divergences apart: the set of features
/// it uses (scopes, value types, arguments, forwarding, re-registration, resets...), not types or names.
public func signature(_ steps: [Step]) -> String {
    var features: Set<String> = []
    var keys: Set<String> = []
    for step in steps {
        switch step {
        case .child: features.insert("child")
        case .register(let r):
            features.insert("\(r.scope)" + (r.kind == .v ? " value" : ""))
            if r.args == [.pair] { features.insert("tuple-arg") } else if !r.args.isEmpty { features.insert("args") }
            if r.initCompleted { features.insert("initCompleted") }
            if !r.forwards.isEmpty { features.insert("implements") }
            if !r.deps.isEmpty { features.insert("deps") }
            let key = "\(r.container) \(r.service) \(r.name ?? "") \(r.args)"
            if !keys.insert(key).inserted { features.insert("re-register") }
        case .resolve(_, let q, let hold):
            if q.args.map(\.type) == [.pair] { features.insert("resolve(tuple-arg)") }
            if hold { features.insert("hold") }
        case .drop: features.insert("drop")
        case .synchronize: features.insert("synchronize")
        case .removeAll: features.insert("removeAll")
        case .reset(_, let scope, let service):
            features.insert("reset(\(scope)\(service == nil ? "" : ", serviceType:"))")
        }
    }
    return features.sorted().joined(separator: ", ")
}

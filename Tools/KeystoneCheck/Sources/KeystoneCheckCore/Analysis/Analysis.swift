/// A problem found, before it is placed in a file.
struct Finding {
    var location: Location
    var rule: Rule
    var message: String
}

/// The four rules over the registrations and resolves of all checked files.
struct Analysis {
    let registrations: [RegistrationSite]
    let resolves: [ResolveSite]
    let paths: [String]

    private(set) var findings: [Finding] = []
    private(set) var exactRegistrationCount = 0
    private(set) var checkedResolveCount = 0
    private(set) var notCheckableCount = 0

    /// Registrations answering a key, directly or through `implements`.
    private var answers: [Key: [Int]] = [:]
    /// Registrations made directly under a key, in checking order.
    private var direct: [Key: [Int]] = [:]
    /// Keys answered, by type spelling (for near misses).
    private var keysByType: [String: Set<Key>] = [:]
    /// Type spellings answered, without module qualifiers.
    private var looseTypes: Set<String> = []
    /// Keys answered, with their type spelled without module or enclosing-type qualifiers.
    private var looseKeys: Set<Key> = []
    /// Registrations the source does not decide, with what they may answer.
    private var wildcards: [(type: TypePattern, name: NameSpec, argumentCount: Int?)] = []

    /// What a resolve's key leads to.
    enum Verdict {
        /// Registrations answer the key; `certain` when nothing undecided might answer it instead.
        case found([Int], certain: Bool)
        /// A wrapper (`Lazy`, `Provider`, `Optional`) of something registered: no edge.
        case wrapped
        /// Nothing answers the key.
        case missing(Key)
        /// The source does not decide.
        case unknown
    }

    init(registrations: [RegistrationSite], resolves: [ResolveSite], paths: [String]) {
        self.registrations = registrations
        self.resolves = resolves
        self.paths = paths
    }

    mutating func run() {
        indexRegistrations()
        var verdicts: [Verdict] = []
        for resolve in resolves {
            let verdict = lookup(resolve.key)
            verdicts.append(verdict)
            switch verdict {
            case .found, .wrapped:
                checkedResolveCount += 1
            case .missing(let key):
                checkedResolveCount += 1
                findings.append(
                    Finding(location: resolve.location, rule: .missing, message: missingMessage(resolve.key, wrapped: key)))
            case .unknown:
                notCheckableCount += 1
            }
        }
        checkIsolation(verdicts)
        checkCycles(verdicts)
        checkDuplicates()
    }

    // MARK: - The registrations

    private mutating func indexRegistrations() {
        for (index, registration) in registrations.enumerated() {
            let name = registration.inLoop ? NameSpec.unknown : registration.name
            if let key = registration.exactKey {
                exactRegistrationCount += 1
                direct[key, default: []].append(index)
                answer(key, by: index)
            } else {
                notCheckableCount += 1
                wildcards.append((registration.type.pattern, name, registration.argumentCount))
            }
            for (type, forwardedName) in registration.forwarded {
                let forwardedName = registration.inLoop ? NameSpec.unknown : forwardedName
                if case .exact(let spelling) = type, let count = registration.argumentCount,
                    forwardedName != .unknown
                {
                    let literal: String? = if case .literal(let text) = forwardedName { text } else { nil }
                    answer(Key(type: spelling, name: literal, argumentCount: count), by: index)
                } else {
                    if registration.exactKey != nil { notCheckableCount += 1 }
                    wildcards.append((type.pattern, forwardedName, registration.argumentCount))
                }
            }
        }
    }

    private mutating func answer(_ key: Key, by index: Int) {
        answers[key, default: []].append(index)
        keysByType[key.type, default: []].insert(key)
        looseTypes.insert(Self.loose(key.type))
        looseKeys.insert(Key(type: Self.loose(key.type), name: key.name, argumentCount: key.argumentCount))
    }

    /// The spelling without module or enclosing-type qualifiers: `Foundation.Date` as `Date`.
    static func loose(_ type: String) -> String {
        var result = ""
        var word = ""
        for character in type {
            if character.isLetter || character.isNumber || character == "_" {
                word.append(character)
            } else if character == ".", !word.isEmpty {
                word = ""
            } else {
                result += word
                word = ""
                result.append(character)
            }
        }
        return result + word
    }

    private func mightAnswer(_ key: Key) -> Bool {
        wildcards.contains { wildcard in
            let nameMatches: Bool =
                switch wildcard.name {
                case .unknown: true
                case .none: key.name == nil
                case .literal(let name): key.name == name
                }
            return nameMatches && (wildcard.argumentCount.map { $0 == key.argumentCount } ?? true)
                && wildcard.type.matches(key.type)
        }
    }

    func lookup(_ key: Key) -> Verdict {
        let undecided = mightAnswer(key)
        if let found = answers[key] {
            return .found(found, certain: !undecided)
        }
        // `URLSession` and `Foundation.URLSession`, `ViewModel` and `Feed.ViewModel` may be one type: a
        // key answered under another qualification is not decided, whatever else its type has.
        let looseKey = Key(type: Self.loose(key.type), name: key.name, argumentCount: key.argumentCount)
        if undecided || looseKeys.contains(looseKey)
            || (keysByType[key.type] == nil && looseTypes.contains(Self.loose(key.type)))
        {
            return .unknown
        }
        for wrapper in ["Lazy", "Provider", "Keystone.Lazy", "Keystone.Provider"]
        where key.type.hasPrefix(wrapper + "<") && key.type.hasSuffix(">") {
            let inner = Key(
                type: String(key.type.dropFirst(wrapper.count + 1).dropLast()), name: key.name,
                argumentCount: key.argumentCount)
            switch lookup(inner) {
            case .found, .wrapped: return .wrapped
            case .missing: return .missing(inner)
            case .unknown: return .unknown
            }
        }
        if key.type.hasSuffix("?") {
            // An optional of something registered is served by it; what it does when nothing is
            // registered is left unchecked.
            let inner = Key(type: String(key.type.dropLast()), name: key.name, argumentCount: key.argumentCount)
            if case .found = lookup(inner) {
                return .wrapped
            }
            return .unknown
        }
        if key.type == "GraphIdentifier" || key.type == "Keystone.GraphIdentifier" {
            return .unknown
        }
        return .missing(key)
    }

    // MARK: - [missing]

    private func missingMessage(_ asked: Key, wrapped key: Key) -> String {
        var text = "No registration for \(key)"
        if asked != key {
            text += ", which this resolve of \(asked.type) needs"
        }
        text += "."
        let nearMisses = (keysByType[key.type] ?? []).filter { $0 != key }.map(\.description).sorted()
        let arguments = key.argumentCount > 0 ? "resolver, arguments..." : "resolver"
        let name = key.name.map { ", name: \"\($0)\"" } ?? ""
        let hint = "container.register(\(key.type).self\(name)) { \(arguments) in ... }"
        if nearMisses.isEmpty {
            text += " Nothing else is registered for \(key.type); register it with \(hint)."
        } else {
            text += " Registered for \(key.type): \(nearMisses.joined(separator: "; "))."
            text += " Fix: register it with \(hint), or resolve one of those (names and argument counts must match exactly)."
        }
        return text
    }

    // MARK: - [isolation]

    private mutating func checkIsolation(_ verdicts: [Verdict]) {
        for (resolve, verdict) in zip(resolves, verdicts) where !resolve.isAsync {
            guard resolve.role == .factoryBody || resolve.role == .initCompleted,
                case .found(let found, certain: true) = verdict
            else { continue }
            let context = registrations[resolve.registration].kind
            guard context != .asynchronous else { continue }
            var kinds: [FactoryKind] = []
            var allFail = true
            for index in found {
                let target = registrations[index]
                let warmedUp = target.argumentCount == 0 && target.scope == .container
                switch target.kind {
                case .synchronous:
                    allFail = false
                case .asynchronous:
                    if warmedUp || target.scope == .unknown { allFail = false }
                case .mainActor:
                    if warmedUp || target.scope == .unknown || context == .mainActor { allFail = false }
                }
                kinds.append(target.kind)
            }
            guard allFail, !found.isEmpty else { continue }
            let key = resolve.key
            let where_ = resolve.role == .initCompleted ? "an initCompleted action" : "a synchronous factory"
            let message: String
            if kinds.contains(.asynchronous) {
                message =
                    "\(key) is created only by an async factory, so this synchronous resolve in \(where_) fails "
                    + "until an instance exists. Fix: resolve it with try await resolver.resolveAsync(\(key.type).self) "
                    + "in an async factory, or register it .inObjectScope(.container) without arguments and call "
                    + "try await container.warmUp() at launch."
            } else {
                message =
                    "\(key) is created only by a main-actor factory, so this synchronous resolve in \(where_) "
                    + "fails off the main actor until an instance exists. Fix: resolve it with try await "
                    + "resolver.resolveAsync(\(key.type).self) in an async factory, or register it "
                    + ".inObjectScope(.container) without arguments and call try await container.warmUp() at launch."
            }
            findings.append(Finding(location: resolve.location, rule: .isolation, message: message))
        }
    }

    // MARK: - [cycle]

    private mutating func checkCycles(_ verdicts: [Verdict]) {
        // Edges from a registration to the one registration its factory body certainly reaches, each with
        // the `#if` clauses it is made under.
        var edges: [Int: [(target: Int, configuration: Set<String>)]] = [:]
        for (resolve, verdict) in zip(resolves, verdicts) where resolve.role == .factoryBody {
            guard case .found(var found, certain: true) = verdict, registrations[resolve.registration].exactKey != nil
            else { continue }
            if found.count > 1 {
                // Registered more than once: the registration made in the same function, if only one is.
                let scope = registrations[resolve.registration].enclosingScope
                found = found.filter { registrations[$0].enclosingScope == scope }
            }
            guard found.count == 1, let target = found.first, registrations[target].exactKey != nil else { continue }
            // Registered in the same function on receivers spelled differently: taken for two containers.
            let owner = registrations[resolve.registration]
            if registrations[target].enclosingScope == owner.enclosingScope && registrations[target].receiver != owner.receiver {
                continue
            }
            let edge = (target: target, configuration: resolve.configuration)
            if !(edges[resolve.registration]?.contains { $0.target == edge.target && $0.configuration == edge.configuration } ?? false) {
                edges[resolve.registration, default: []].append(edge)
            }
        }
        let order = registrations.indices.sorted { registrations[$0].location < registrations[$1].location }
        var rank: [Int: Int] = [:]
        for (position, index) in order.enumerated() {
            rank[index] = position
        }
        var budget = 200_000
        var reported = 0
        for start in order where edges[start] != nil {
            var path = [start]
            var onPath: Set<Int> = [start]
            var configurations: [Set<String>] = []
            var reportedCycles: Set<[Int]> = []
            func walk(_ node: Int) {
                for next in edges[node] ?? [] {
                    budget -= 1
                    guard budget > 0, reported < 1_000 else { return }
                    configurations.append(next.configuration)
                    defer { configurations.removeLast() }
                    if next.target == start {
                        report(path + [start])
                    } else if rank[next.target]! > rank[start]!, !onPath.contains(next.target) {
                        path.append(next.target)
                        onPath.insert(next.target)
                        walk(next.target)
                        onPath.remove(next.target)
                        path.removeLast()
                    }
                }
            }
            func report(_ cycle: [Int]) {
                // The same key with the same arguments again is a cycle for certain only when one of the
                // registrations on it takes no runtime arguments.
                guard cycle.contains(where: { registrations[$0].argumentCount == 0 }) else { return }
                // Under `#if`, the edges are made together only when one of them needs every clause the
                // others need: edges under `#if DEBUG` and under its `#else` are never in one build.
                let union = configurations.reduce(into: Set<String>()) { $0.formUnion($1) }
                guard configurations.contains(union), reportedCycles.insert(cycle).inserted else { return }
                reported += 1
                let keys = cycle.map { registrations[$0].exactKey!.description }
                findings.append(
                    Finding(
                        location: registrations[start].location,
                        rule: .cycle,
                        message: "Circular dependency: \(keys.joined(separator: " -> ")). Fix: let one of these "
                            + "factories stop resolving the next, and inject it in .initCompleted { resolver, instance in ... } "
                            + "with a scope other than .transient, or through Lazy or Provider."
                    ))
            }
            walk(start)
        }
    }

    // MARK: - [duplicate]

    private mutating func checkDuplicates() {
        for (key, indices) in direct where indices.count > 1 {
            let ordered = indices.sorted { registrations[$0].location < registrations[$1].location }
            for (position, index) in ordered.enumerated().dropFirst() {
                // The latest earlier registration that can run in the same build as this one.
                guard let previous = ordered[..<position].last(where: { registrations[$0].canRun(with: registrations[index]) })
                else { continue }
                let earlier = registrations[previous].location
                findings.append(
                    Finding(
                        location: registrations[index].location,
                        rule: .duplicate,
                        message: "\(key) is registered again; this registration replaces the one at "
                            + "\(paths[earlier.file]):\(earlier.line) (a container keeps the last registration of a key)."
                    ))
            }
        }
    }
}

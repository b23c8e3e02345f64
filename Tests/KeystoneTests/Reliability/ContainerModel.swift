import Keystone

extension Reliability {
    /// What a hierarchy of containers should do, written for clarity, not speed: plain dictionaries
    /// and the rules of the API contract, one function per rule.
    ///
    /// - A key is answered by the container's own registration, else the nearest ancestor's.
    /// - A missing key fails with `notRegistered`: the asked key, the keys in flight that needed it,
    ///   and the near misses (same service type, other name or argument types) seen from the container
    ///   the resolve started from.
    /// - A registration with a dependency resolves it twice, from the container the top-level resolve
    ///   started from, before making its instance, which then holds both. Resolving a registration whose
    ///   factory is still running fails the whole call with `circularDependency`, the path from that
    ///   registration's first key in flight to the key asked again.
    /// - Instances are reused by scope: `.transient` never; `.graph` within one top-level resolve;
    ///   `.weak` within one top-level resolve, and across them while the instance is alive (held by the
    ///   test, or by an instance that is); `.container` from its first creation until
    ///   `resetObjectScope` (of its container or a descendant), re-registration, `removeAll` or
    ///   removal of its key.
    /// - New instances are numbered in creation order: dependencies before the instance needing them.
    struct ContainerModel {
        struct Registration {
            let id: Int
            let key: ModelKey
            let scope: ScopeChoice
            /// The key the factory resolves twice before making its instance.
            let dependency: ModelKey?
            /// The serial of the `.container` instance held.
            var containerInstance: Int?
            /// The serial of the last `.weak` instance made; it is reused only while it is alive.
            var weakInstance: Int?
        }

        struct Node {
            let parent: Int?
            let defaultScope: ScopeChoice
            /// The container's own registrations: key to registration id.
            var table: [ModelKey: Int] = [:]
        }

        /// The instance a resolve should return: which registration made it, its serial, whether it is
        /// new (then made with `arguments`), and the instances its factory resolved, in order.
        indirect enum Expected {
            case existing(registration: Int, serial: Int)
            case new(registration: Int, serial: Int, arguments: String, dependencies: [Expected])

            var serial: Int {
                switch self {
                case .existing(_, let serial), .new(_, let serial, _, _): serial
                }
            }

            var registration: Int {
                switch self {
                case .existing(let registration, _), .new(let registration, _, _, _): registration
                }
            }
        }

        /// Why a resolve should fail.
        enum Failure: Error, Equatable {
            case notRegistered(key: ModelKey, path: [ModelKey], candidates: Set<ModelKey>)
            case cycle(path: [ModelKey])

            /// The engine's error for it.
            var error: DIError {
                switch self {
                case .notRegistered(let key, let path, let candidates):
                    .notRegistered(
                        key: key.serviceKey,
                        path: path.map(\.serviceKey),
                        candidates: candidates.map(\.serviceKey)
                    )
                case .cycle(let path):
                    .circularDependency(path: path.map(\.serviceKey))
                }
            }
        }

        /// One top-level resolve being simulated.
        struct Simulation {
            /// Instances made in this graph, by registration (all but `.transient`).
            var graph: [Int: Int] = [:]
            /// The registrations whose factories are running, with the key each was asked for.
            var path: [(registration: Int, key: ModelKey, arguments: String)] = []
            /// The serial the next new instance takes.
            var nextSerial: Int
            /// The new instances, in creation order: registration, serial, the serials they hold.
            var created: [(registration: Int, serial: Int, holds: [Int])] = []
        }

        private(set) var nodes: [Node]
        private(set) var registrations: [Int: Registration] = [:]
        /// What each instance made by a factory with a dependency holds, by serial.
        private var holdings: [Int: [Int]] = [:]
        private var nextRegistration = 1

        /// A model of one root container, whose registrations are in `defaultScope` unless they say
        /// otherwise.
        init(rootDefaultScope defaultScope: ScopeChoice = .graph) {
            nodes = [Node(parent: nil, defaultScope: defaultScope)]
        }

        /// The ids of the nodes from `node` up to the root.
        func chain(from node: Int) -> [Int] {
            var result: [Int] = []
            var current: Int? = node
            while let index = current {
                result.append(index)
                current = nodes[index].parent
            }
            return result
        }

        // MARK: - Changes

        mutating func addChild(of parent: Int, defaultScope: ScopeChoice) -> Int {
            nodes.append(Node(parent: parent, defaultScope: defaultScope))
            return nodes.count - 1
        }

        /// Registers `key` on `node`, replacing (and so forgetting the instance of) a registration of the
        /// same key there. Returns the new registration's id.
        mutating func register(_ key: ModelKey, on node: Int, scope: ScopeChoice?, dependency: ModelKey? = nil) -> Int {
            let id = nextRegistration
            nextRegistration += 1
            if let replaced = nodes[node].table[key] {
                registrations[replaced] = nil
            }
            registrations[id] = Registration(
                id: id,
                key: key,
                scope: scope ?? nodes[node].defaultScope,
                dependency: dependency
            )
            nodes[node].table[key] = id
            return id
        }

        /// Forgets the instances held for registrations in `scope` (and of `service`, if given) of `node`
        /// and its ancestors, never of its descendants. With a service, as Swinject: the walk up stops at
        /// the first container that has no registration of that service.
        mutating func reset(_ scope: ScopeChoice, service: ServiceKind?, from node: Int) {
            for index in chain(from: node) {
                if let service, !nodes[index].table.keys.contains(where: { $0.service == service }) {
                    return
                }
                for id in nodes[index].table.values {
                    guard let registration = registrations[id], registration.scope == scope else { continue }
                    if let service, registration.key.service != service { continue }
                    registrations[id]?.containerInstance = nil
                    registrations[id]?.weakInstance = nil
                }
            }
        }

        /// Removes every registration of `node` (not of its ancestors or descendants).
        mutating func removeAll(on node: Int) {
            for id in nodes[node].table.values {
                registrations[id] = nil
            }
            nodes[node].table = [:]
        }

        /// Removes `key` from `node` only; returns whether it was registered there.
        mutating func unregister(_ key: ModelKey, on node: Int) -> Bool {
            guard let id = nodes[node].table.removeValue(forKey: key) else { return false }
            registrations[id] = nil
            return true
        }

        /// Records what a resolve simulated with ``simulate(_:on:held:nextSerial:)`` created.
        mutating func commit(_ simulation: Simulation) {
            for made in simulation.created {
                if !made.holds.isEmpty {
                    holdings[made.serial] = made.holds
                }
                guard let scope = registrations[made.registration]?.scope else { continue }
                switch scope {
                case .container:
                    registrations[made.registration]?.containerInstance = made.serial
                case .weak:
                    registrations[made.registration]?.weakInstance = made.serial
                case .transient, .graph:
                    break
                }
            }
        }

        // MARK: - Questions

        /// The registration that answers `key` on `node`: its own, else the nearest ancestor's.
        func lookup(_ key: ModelKey, on node: Int) -> Int? {
            for index in chain(from: node) {
                if let id = nodes[index].table[key] {
                    return id
                }
            }
            return nil
        }

        /// The near misses of `key` on `node`: keys of the same service type, under another name or other
        /// argument types, registered on `node` or an ancestor.
        func candidates(for key: ModelKey, on node: Int) -> Set<ModelKey> {
            var result: Set<ModelKey> = []
            for index in chain(from: node) {
                for registered in nodes[index].table.keys where registered.service == key.service && registered != key {
                    result.insert(registered)
                }
            }
            return result
        }

        /// The instances alive now: those the test holds, the `.container` instances, and everything they
        /// hold, transitively.
        func alive(held: Set<Int>) -> Set<Int> {
            var alive: Set<Int> = []
            var pending = Array(held) + registrations.values.compactMap(\.containerInstance)
            while let serial = pending.popLast() {
                if alive.insert(serial).inserted {
                    pending += holdings[serial] ?? []
                }
            }
            return alive
        }

        /// What a top-level resolve of `key` on `node` should do, given the serials the test holds and the
        /// serial the next new instance takes.
        func simulate(
            _ key: ModelKey,
            on node: Int,
            arguments: String,
            held: Set<Int>,
            nextSerial: Int
        ) -> (result: Result<Expected, Failure>, simulation: Simulation) {
            var simulation = Simulation(nextSerial: nextSerial)
            let alive = alive(held: held)
            let result = Result { () throws(Failure) in
                try resolve(key, from: node, arguments: arguments, alive: alive, in: &simulation)
            }
            return (result, simulation)
        }

        /// One resolve, top-level or nested, in `simulation`.
        private func resolve(
            _ key: ModelKey,
            from node: Int,
            arguments: String,
            alive: Set<Int>,
            in simulation: inout Simulation
        ) throws(Failure) -> Expected {
            guard let id = lookup(key, on: node), let registration = registrations[id] else {
                throw .notRegistered(
                    key: key,
                    path: simulation.path.map(\.key),
                    candidates: candidates(for: key, on: node)
                )
            }
            // A cycle is the same registration asked for again with the same arguments; other arguments
            // are recursion.
            if let first = simulation.path.firstIndex(where: { $0.registration == id && $0.arguments == arguments }) {
                throw .cycle(path: simulation.path[first...].map(\.key) + [key])
            }
            switch registration.scope {
            case .transient:
                break
            case .graph:
                if let serial = simulation.graph[id] {
                    return .existing(registration: id, serial: serial)
                }
            case .container:
                if let serial = simulation.graph[id] ?? registration.containerInstance {
                    return .existing(registration: id, serial: serial)
                }
            case .weak:
                if let serial = simulation.graph[id] {
                    return .existing(registration: id, serial: serial)
                }
                if let serial = registration.weakInstance, alive.contains(serial) {
                    return .existing(registration: id, serial: serial)
                }
            }
            var dependencies: [Expected] = []
            if let dependency = registration.dependency {
                simulation.path.append((id, key, arguments))
                let rendered = dependencyArguments.rendered(for: dependency.signature)
                for _ in 0..<2 {
                    dependencies.append(
                        try resolve(dependency, from: node, arguments: rendered, alive: alive, in: &simulation)
                    )
                }
                simulation.path.removeLast()
            }
            let serial = simulation.nextSerial
            simulation.nextSerial += 1
            simulation.created.append((id, serial, dependencies.map(\.serial)))
            if registration.scope != .transient {
                // Found again in this graph; a `.container` instance is also kept after it.
                simulation.graph[id] = serial
            }
            return .new(registration: id, serial: serial, arguments: arguments, dependencies: dependencies)
        }

        /// `hasAnyRegistration(of: service, name: name)` on `node`.
        func hasAnyRegistration(of service: ServiceKind, name: String?, on node: Int) -> Bool {
            chain(from: node).contains { index in
                nodes[index].table.keys.contains { $0.service == service && $0.name == name }
            }
        }

        /// `registeredCount()` of `node`.
        func registeredCount(on node: Int) -> Int {
            nodes[node].table.count
        }
    }
}

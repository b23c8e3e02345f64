extension Reliability {
    /// One step of a model run. A container number beyond those that exist when the step runs means the
    /// newest container, and a held-instance number is taken modulo the instances held, so every
    /// operation means something in any sequence: the shrinker may drop any of them.
    enum Operation: Equatable {
        /// Adds a child of container `parent` (at most ``maximumContainers`` exist).
        case addChild(parent: Int, defaultScope: ScopeChoice)
        /// Registers `key` on `container`, in `scope` or the container's default when `nil`; the factory
        /// resolves `dependency` twice first, if there is one.
        case register(container: Int, key: ModelKey, scope: ScopeChoice?, dependency: ModelKey?)
        /// Resolves `key` from `container`; with `keep`, the test holds the instances it gets.
        case resolve(container: Int, key: ModelKey, arguments: ArgumentValues, style: ResolveStyle, keep: Bool)
        /// Asks `hasAnyRegistration(of:name:)`.
        case hasAnyRegistration(container: Int, service: ServiceKind, name: String?)
        /// `resetObjectScope(scope)`.
        case resetScope(container: Int, scope: ScopeChoice)
        /// `resetObjectScope(scope, serviceType:)`.
        case resetService(container: Int, scope: ScopeChoice, service: ServiceKind)
        /// `removeAll()`.
        case removeAll(container: Int)
        /// Removes one key, as `DIActor.release` does (the engine's internal `unregister`).
        case unregister(container: Int, key: ModelKey)
        /// Lets go of one held instance.
        case release(held: Int)
        /// Lets go of every held instance.
        case releaseAll
    }

    static let maximumContainers = 4

    /// Makes random operation sequences, the same ones for the same seed.
    ///
    /// It biases towards operations that meet: most resolves ask for a key registered earlier, or a near
    /// miss of one (another name, other argument types), and some registrations repeat an earlier key.
    struct OperationGenerator {
        private var random: SplitMix64
        /// The keys registered so far, with the container each was registered on.
        private var registered: [(key: ModelKey, container: Int)] = []
        private var containers = 1

        init(seed: UInt64) {
            random = SplitMix64(seed: seed)
        }

        /// A generator that continues from registrations made already: `containers` containers exist,
        /// and `registered` lists the keys registered on them.
        init(seed: UInt64, registered: [(key: ModelKey, container: Int)], containers: Int) {
            random = SplitMix64(seed: seed)
            self.registered = registered
            self.containers = containers
        }

        static func sequence(seed: UInt64, count: Int) -> [Operation] {
            var generator = OperationGenerator(seed: seed)
            return (0..<count).map { _ in generator.next() }
        }

        mutating func next() -> Operation {
            let roll = random.below(100)
            switch roll {
            case 0..<24:
                let key = registered.isEmpty || random.chance(65) ? randomKey() : random.pick(registered).key
                let target = container()
                registered.append((key, target))
                let scope: ScopeChoice? = random.chance(15) ? nil : random.pick(ScopeChoice.allCases)
                let dependency: ModelKey? = random.chance(30) ? wantedKey().key : nil
                return .register(container: target, key: key, scope: scope, dependency: dependency)
            case 24..<72:
                let (key, home) = wantedKey()
                return .resolve(
                    container: home.flatMap { random.chance(50) ? $0 : nil } ?? container(),
                    key: key,
                    arguments: ArgumentValues(
                        int: random.below(100),
                        string: random.pick(["a", "b", "kiwi"]),
                        bool: random.chance(50)
                    ),
                    style: random.pick(ResolveStyle.allCases),
                    keep: random.chance(40)
                )
            case 72..<76:
                return .hasAnyRegistration(
                    container: container(),
                    service: service(),
                    name: random.pick(Reliability.names)
                )
            case 76..<81:
                return .resetScope(container: container(), scope: random.pick(ScopeChoice.allCases))
            case 81..<86:
                return .resetService(
                    container: container(),
                    scope: random.pick(ScopeChoice.allCases),
                    service: service()
                )
            case 86..<87:
                return .removeAll(container: container())
            case 87..<89:
                let (key, home) = wantedKey()
                return .unregister(container: home ?? container(), key: key)
            case 89..<93:
                let parent = container()
                if containers < Reliability.maximumContainers {
                    containers += 1
                }
                return .addChild(parent: parent, defaultScope: random.pick(ScopeChoice.allCases))
            case 93..<98:
                return .release(held: random.below(16))
            default:
                return .releaseAll
            }
        }

        private mutating func container() -> Int {
            random.below(containers)
        }

        private mutating func service() -> ServiceKind {
            random.chance(75) ? random.pick(ServiceKind.common) : random.pick(ServiceKind.all)
        }

        private mutating func randomKey() -> ModelKey {
            ModelKey(
                service: service(),
                name: random.pick(Reliability.names),
                signature: random.pick(Signature.allCases)
            )
        }

        /// A key to resolve or remove: mostly one registered before (with the container it was registered
        /// on), sometimes a near miss of one.
        private mutating func wantedKey() -> (key: ModelKey, home: Int?) {
            guard !registered.isEmpty, random.chance(80) else { return (randomKey(), nil) }
            var (key, home) = random.pick(registered)
            switch random.below(10) {
            case 0: key.name = random.pick(Reliability.names)
            case 1: key.signature = random.pick(Signature.allCases)
            default: break
            }
            return (key, home)
        }
    }

    /// The shortest sub-sequence of `items` for which `stillFails` holds, as far as dropping chunks finds:
    /// halves first, then quarters, and so on down to single items, until no single item can be
    /// dropped. `stillFails(items)` must hold.
    static func shrink<T>(_ items: [T], stillFails: ([T]) -> Bool) -> [T] {
        var current = items
        var chunk = max(current.count / 2, 1)
        while true {
            var removedAny = false
            var start = 0
            while start < current.count {
                let end = min(start + chunk, current.count)
                let candidate = Array(current[..<start] + current[end...])
                if stillFails(candidate) {
                    current = candidate
                    removedAny = true
                } else {
                    start = end
                }
            }
            if chunk > 1 {
                chunk = max(chunk / 2, 1)
            } else if !removedAny {
                return current
            }
        }
    }
}

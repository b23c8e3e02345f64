import Foundation
import Keystone
import Testing

extension Reliability {
    // The model's generator driving synchronized views from several threads at once.
    //
    // Each round registers, up front, the first forty registrations the generator makes (on a parent
    // and a child container; some with a dependency). Then four threads resolve through the views of
    // both, each driven by a generator of its own seed that continues from those registrations, while a
    // fifth thread registers new keys (which takes the hierarchy's lock) and publishes how many it has
    // registered.
    //
    // Checked on every resolve, against the frozen model: success or failure as predicted, a failure
    // with the exact error, the right registration at every level of the instance and its
    // dependencies, the right arguments for a new top-level instance, a held `.weak` instance returned
    // again, a top-level `.transient`/`.graph` instance never returned twice, a published key always
    // found. Checked at the end: every `.container` factory ran exactly once if its instance was seen
    // anywhere (never otherwise) and every thread saw the same instance, no two threads got the same
    // unshared instance, and every registered key resolves. Made to pass under Thread Sanitizer.
    //
    // `KEYSTONE_MODEL_THREADED_ROUNDS` and `KEYSTONE_MODEL_THREADED_STEPS` run more;
    // `KEYSTONE_MODEL_SEED` seeds the run. Thread interleavings are not replayable, so a failure names
    // the round's seed and the worker's step rather than a shrunk sequence.
    @Suite("Threaded model checking of SynchronizedResolver", .tags(.concurrency), .hangLimit)
    struct ThreadedModelTests {
        static let baseSeed: UInt64 = 0x5448_5245_4144_5321  // "THREADS!"
        static let resolvers = 4
        static let lateKeys = 96

        @Test("Four threads resolving while a fifth registers new keys keep every invariant")
        func threadsKeepTheInvariants() {
            let base = Knobs.replaySeed ?? Self.baseSeed
            for round in 0..<Knobs.threadedRounds {
                let seed = SplitMix64.derive(base, round)
                let problems = ThreadedRound(seed: seed, steps: Knobs.threadedSteps).run()
                if !problems.isEmpty {
                    let hex = "0x" + String(seed, radix: 16, uppercase: true)
                    Issue.record(
                        Comment(
                            rawValue:
                                "Round \(round), seed \(hex) (base KEYSTONE_MODEL_SEED=0x\(String(base, radix: 16, uppercase: true))):\n"
                                + problems.prefix(20).joined(separator: "\n")
                        )
                    )
                    return
                }
            }
        }
    }

    /// A service kind the up-front registrations never use, reserved for the keys registered while the
    /// workers run: a resolve of any other service type has the same answer throughout.
    static let lateService = ServiceKind(index: ServiceKind.count - 1)

    /// What one worker saw, for the checks made after all threads have ended.
    struct WorkerReport: Sendable {
        /// Registration id to the serial of its `.container` instance, as this worker saw it, at any
        /// depth.
        var shared: [Int: Int] = [:]
        /// The serials of top-level `.transient` and `.graph` instances this worker got.
        var unshared: Set<Int> = []
    }

    /// A late registration: the key, the container (0 parent, 1 child), the registration number its
    /// factory stamps, and the scope it gets (the container's default).
    struct LateRegistration: Sendable {
        let key: ModelKey
        let container: Int
        let registration: Int
        let scope: ScopeChoice
    }

    /// One round: the set-up, the threads, and the final checks.
    struct ThreadedRound {
        let seed: UInt64
        let steps: Int

        func run() -> [String] {
            let mint = Mint()
            let parent = Container(defaultObjectScope: .container)
            let child = Container(parent: parent, defaultObjectScope: .graph)
            var model = ContainerModel(rootDefaultScope: .container)
            _ = model.addChild(of: 0, defaultScope: .graph)

            // The registrations made before the threads start: the generator's first forty that stay
            // clear of the late service type.
            var generator = OperationGenerator(seed: seed, registered: [], containers: 2)
            var fixed: [(key: ModelKey, container: Int)] = []
            while fixed.count < 40 {
                guard case .register(let container, let key, let scope, let dependency) = generator.next(),
                    key.service != lateService, dependency?.service != lateService
                else { continue }
                let node = min(container, 1)
                let id = model.register(key, on: node, scope: scope, dependency: dependency)
                dispatch(
                    key.service,
                    RegisterVisitor(
                        container: node == 0 ? parent : child,
                        key: key,
                        scope: scope?.scope,
                        registration: id,
                        mint: mint,
                        dependency: dependency
                    )
                )
                fixed.append((key, node))
            }
            let frozen = model
            let late = (0..<ThreadedModelTests.lateKeys).map { index in
                let container = index % 2
                return LateRegistration(
                    key: ModelKey(service: lateService, name: "late\(index)", signature: index % 3 == 0 ? .int : .none),
                    container: container,
                    registration: 100_000 + index,
                    scope: container == 0 ? .container : .graph
                )
            }

            let views = [parent.synchronize(), child.synchronize()]
            let published = Counter()
            let log = MessageLog()
            let reports = LockedBox<[WorkerReport]>([])
            let fixedKeys = fixed.map { ($0.key, $0.container) }
            nonisolated(unsafe) let registrar = (parent, child)  // registering takes the hierarchy's lock

            onThreads(ThreadedModelTests.resolvers + 1) { index in
                var worker = Worker(
                    seed: seed,
                    index: index,
                    views: views,
                    model: frozen,
                    registered: fixedKeys,
                    late: late,
                    mint: mint,
                    published: published,
                    log: log
                )
                if index == ThreadedModelTests.resolvers {
                    for registration in late {
                        let container = registration.container == 0 ? registrar.0 : registrar.1
                        dispatch(
                            registration.key.service,
                            RegisterVisitor(
                                container: container,
                                key: registration.key,
                                scope: nil,
                                registration: registration.registration,
                                mint: mint
                            )
                        )
                        published.increment()
                        worker.step(0, lateOnly: true)
                        _ = container.hasAnyRegistration(of: NumberedProbe<Marker13>.self, name: registration.key.name)
                    }
                } else {
                    for step in 0..<steps {
                        worker.step(step, lateOnly: false)
                    }
                }
                reports.withLock { $0.append(worker.report) }
            }

            var problems = log.all
            let all = reports.withLock { $0 }
            // Every `.container` factory ran once if its instance was seen, and every thread saw the same
            // instance.
            var shared: [Int: Int] = [:]
            for report in all {
                for (registration, serial) in report.shared {
                    if let other = shared[registration], other != serial {
                        problems.append(
                            "registration #\(registration): threads saw .container instances \(other) and \(serial)"
                        )
                    }
                    shared[registration] = serial
                }
            }
            var containerRegistrations = frozen.registrations.values.filter { $0.scope == .container }.map(\.id)
            containerRegistrations += late.filter { $0.scope == .container }.map(\.registration)
            for registration in containerRegistrations {
                let runs = mint.runs(of: registration)
                let expected = shared[registration] == nil ? 0 : 1
                if runs != expected {
                    problems.append(
                        "the .container factory of registration #\(registration) ran \(runs) times, expected \(expected)"
                    )
                }
            }
            // No top-level `.transient`/`.graph` instance reached two threads.
            for (first, one) in all.enumerated() {
                for two in all.dropFirst(first + 1) where !one.unshared.isDisjoint(with: two.unshared) {
                    problems.append(
                        "an unshared instance reached two threads: \(one.unshared.intersection(two.unshared).sorted().prefix(5))"
                    )
                }
            }
            // No registration was lost: everything registered resolves as the model says, from the
            // right registration.
            let arguments = ArgumentValues(int: 1, string: "z", bool: true)
            for (key, _) in fixed {
                for node in 0..<2 {
                    let expected = frozen.simulate(
                        key,
                        on: node,
                        arguments: arguments.rendered(for: key.signature),
                        held: [],
                        nextSerial: 0
                    )
                    let outcome = dispatch(
                        key.service,
                        ResolveVisitor(
                            resolver: views[node],
                            key: key,
                            arguments: arguments,
                            style: .throwing,
                            mint: mint
                        )
                    )
                    switch (expected.result, outcome) {
                    case (.success(let instance), .success(let observations))
                    where observations[0].probe.stamp.registration == instance.registration:
                        continue
                    case (.failure(let failure), .failure(let error)) where error == failure.error:
                        continue
                    case (.failure, .success(let observations))
                    where frozen.mayHaveBeenMadeElsewhere(key, from: node)
                        && observations[0].probe.stamp.registration == frozen.lookup(key, on: node):
                        continue
                    default:
                        problems.append("at the end, \(key) on c\(node) gave \(outcome), expected \(expected.result)")
                    }
                }
            }
            for registration in late {
                let outcome = dispatch(
                    registration.key.service,
                    ResolveVisitor(
                        resolver: views[1],
                        key: registration.key,
                        arguments: arguments,
                        style: .throwing,
                        mint: mint
                    )
                )
                if case .success(let observations) = outcome,
                    observations[0].probe.stamp.registration == registration.registration
                {
                    continue
                }
                problems.append(
                    "at the end, late \(registration.key) gave \(outcome), expected registration #\(registration.registration)"
                )
            }
            if published.count != late.count {
                problems.append("only \(published.count) of \(late.count) late registrations were published")
            }
            return problems
        }
    }

    /// One thread's resolves and checks.
    struct Worker {
        let index: Int
        let views: [SynchronizedResolver]
        let model: ContainerModel
        let late: [LateRegistration]
        let mint: Mint
        let published: Counter
        let log: MessageLog
        /// The model's generator, continuing from the up-front registrations: this thread's resolves.
        var generator: OperationGenerator
        /// This thread's other choices: late keys, and which instances to hold.
        var random: SplitMix64
        var report = WorkerReport()
        /// `.weak` instances this thread holds, by registration: while held, every resolve returns them.
        var heldWeak: [Int: Probe] = [:]

        init(
            seed: UInt64,
            index: Int,
            views: [SynchronizedResolver],
            model: ContainerModel,
            registered: [(key: ModelKey, container: Int)],
            late: [LateRegistration],
            mint: Mint,
            published: Counter,
            log: MessageLog
        ) {
            self.index = index
            self.views = views
            self.model = model
            self.late = late
            self.mint = mint
            self.published = published
            self.log = log
            generator = OperationGenerator(
                seed: SplitMix64.derive(seed, 100 + index),
                registered: registered,
                containers: 2
            )
            random = SplitMix64(seed: SplitMix64.derive(seed, index + 1))
        }

        /// The scope of a registration, up-front or late.
        func scope(of registration: Int) -> ScopeChoice? {
            model.registrations[registration]?.scope
                ?? late.first { $0.registration == registration }?.scope
        }

        mutating func step(_ step: Int, lateOnly: Bool) {
            if lateOnly || random.chance(15) {
                resolveLate(step: step, arguments: ArgumentValues(int: random.below(100), string: "late", bool: false))
                return
            }
            // The generator's next resolve; what it does besides resolving is not this thread's to do,
            // except letting go of what it holds.
            var operation = generator.next()
            while true {
                if case .resolve = operation { break }
                if operation == .releaseAll || random.chance(10) {
                    heldWeak.removeAll()
                }
                operation = generator.next()
            }
            guard case .resolve(let container, let key, let arguments, let style, _) = operation else { return }
            let node = min(container, 1)
            let context = "worker \(index), step \(step): c\(node).\(style)(\(key))"
            let outcome = dispatch(
                key.service,
                ResolveVisitor(resolver: views[node], key: key, arguments: arguments, style: style, mint: mint)
            )
            if key.service == lateService {
                // Never one of the late keys (their names are not the generator's): a miss, whose near
                // misses change as late keys are registered.
                if case .failure(let error) = outcome, error.map({ $0.isNotRegistered(key.serviceKey) }) ?? true {
                    return
                }
                log.append("\(context): expected notRegistered, got \(outcome)")
                return
            }
            let rendered = arguments.rendered(for: key.signature)
            switch model.simulate(key, on: node, arguments: rendered, held: [], nextSerial: 0).result {
            case .failure(let failure):
                switch outcome {
                case .failure(nil):
                    break
                case .failure(let error?) where error == failure.error:
                    break
                case .success(let observations) where model.mayHaveBeenMadeElsewhere(key, from: node):
                    // A shared instance on the failing path was made earlier, from the other container,
                    // where its dependencies resolve.
                    if observations[0].probe.stamp.registration != model.lookup(key, on: node) {
                        log.append("\(context): answered by registration #\(observations[0].probe.stamp.registration)")
                    }
                default:
                    log.append("\(context): expected \(failure.error), got \(outcome)")
                }
            case .success(let expected):
                check(outcome, expected: expected, arguments: rendered, style: style, context: context)
            }
        }

        /// Resolves a late key through the child's view: one published is always found; one not known to
        /// be published yet is found or missing, never anything else.
        mutating func resolveLate(step: Int, arguments: ArgumentValues) {
            let count = published.count
            let pick = random.below(late.count)
            let registration = late[pick]
            let style = random.pick(ResolveStyle.allCases)
            let context = "worker \(index), step \(step): c1.\(style)(\(registration.key)) with \(count) published"
            let outcome = dispatch(
                registration.key.service,
                ResolveVisitor(
                    resolver: views[1],
                    key: registration.key,
                    arguments: arguments,
                    style: style,
                    mint: mint
                )
            )
            if pick >= count, case .failure(let error) = outcome {
                // Not published yet, and not registered yet either: `notRegistered` for this very key.
                if let error, !error.isNotRegistered(registration.key.serviceKey) {
                    log.append("\(context): a late key not registered yet failed with \(error)")
                }
                return
            }
            let expected = ContainerModel.Expected.new(
                registration: registration.registration,
                serial: 0,
                arguments: arguments.rendered(for: registration.key.signature),
                dependencies: []
            )
            check(outcome, expected: expected, arguments: expected.arguments, style: style, context: context)
        }

        mutating func check(
            _ outcome: Outcome,
            expected: ContainerModel.Expected,
            arguments: String,
            style: ResolveStyle,
            context: String
        ) {
            guard case .success(let observations) = outcome else {
                log.append("\(context): expected registration #\(expected.registration), got \(outcome)")
                return
            }
            for observation in observations {
                if let difference = structuralDifference(observation.probe, expected) {
                    log.append("\(context): \(difference)")
                    return
                }
                record(observation.probe)
            }
            let first = observations[0].probe
            let registration = expected.registration
            guard let scope = scope(of: registration) else {
                log.append("\(context): no scope known for registration #\(registration)")
                return
            }
            if scope == .transient || scope == .graph, first.stamp.arguments != arguments {
                log.append("\(context): a new instance was made with \(first.stamp.arguments), expected \(arguments)")
            }
            if observations.count == 2 {
                let second = observations[1].probe
                let same = style == .lazy || scope == .container || scope == .weak
                if (second === first) != same {
                    log.append("\(context): the second get() returned instance \(second.serial) after \(first.serial)")
                }
            }
            switch scope {
            case .container:
                break  // recorded by `record`, at every depth
            case .weak:
                if let held = heldWeak[registration], held !== first {
                    log.append("\(context): .weak instance \(first.serial) while this thread holds \(held.serial)")
                }
                if random.chance(30) {
                    heldWeak[registration] = first
                }
            case .transient, .graph:
                let serials = style == .lazy ? [first.serial] : observations.map(\.probe.serial)
                for serial in serials where !report.unshared.insert(serial).inserted {
                    log.append("\(context): .\(scope) instance \(serial) returned again")
                }
            }
        }

        /// Where `probe` was made by other registrations than `expected` says, at any depth.
        func structuralDifference(_ probe: Probe, _ expected: ContainerModel.Expected) -> String? {
            guard probe.stamp.registration == expected.registration else {
                return
                    "instance \(probe.serial) was made by registration #\(probe.stamp.registration), expected #\(expected.registration)"
            }
            // A shared instance's dependencies were resolved by whoever made it first, perhaps from the
            // other container: only the registration that made it is certain.
            let shared = scope(of: probe.stamp.registration).map { $0 == .container || $0 == .weak } ?? false
            guard case .new(_, _, _, let dependencies) = expected, !shared else { return nil }
            guard probe.stamp.dependencies.count == dependencies.count else {
                return
                    "instance \(probe.serial) holds \(probe.stamp.dependencies.count) dependencies, expected \(dependencies.count)"
            }
            for (actual, wanted) in zip(probe.stamp.dependencies, dependencies) {
                if let difference = structuralDifference(actual, wanted) {
                    return difference
                }
            }
            return nil
        }

        /// Notes the `.container` instances in `probe`'s tree, and checks each is the one seen before.
        mutating func record(_ probe: Probe) {
            if scope(of: probe.stamp.registration) == .container {
                if let seen = report.shared[probe.stamp.registration], seen != probe.serial {
                    log.append(
                        "worker \(index): registration #\(probe.stamp.registration) gave .container instances \(seen) and \(probe.serial)"
                    )
                }
                report.shared[probe.stamp.registration] = probe.serial
            }
            for dependency in probe.stamp.dependencies {
                record(dependency)
            }
        }
    }

    /// A value behind a lock.
    final class LockedBox<Value>: @unchecked Sendable {
        // @unchecked: `value` is read and written only under `lock`.
        private let lock = NSLock()
        private var value: Value

        init(_ value: Value) {
            self.value = value
        }

        func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
            lock.lock()
            defer { lock.unlock() }
            return body(&value)
        }
    }
}

extension DIError {
    /// Whether this is `notRegistered` for `key`, whatever the path and near misses.
    fileprivate func isNotRegistered(_ key: ServiceKey) -> Bool {
        if case .notRegistered(let missing, _, _) = self {
            return missing == key
        }
        return false
    }
}

extension Reliability.ContainerModel.Expected {
    /// The arguments of a new instance; empty for an existing one.
    fileprivate var arguments: String {
        if case .new(_, _, let arguments, _) = self {
            return arguments
        }
        return ""
    }
}

extension Reliability.ContainerModel {
    /// Whether a resolve of `key` that this model (never updated since the threads started) says fails
    /// may succeed all the same: when a registration on its chain of dependencies is `.container` or
    /// `.weak`, another thread may have made that instance from the other container, where its
    /// dependencies resolve, and this resolve reuses it.
    fileprivate func mayHaveBeenMadeElsewhere(_ key: Reliability.ModelKey, from node: Int) -> Bool {
        var seen: Set<Int> = []
        var next: Reliability.ModelKey? = key
        while let current = next, let id = lookup(current, on: node), seen.insert(id).inserted,
            let registration = registrations[id]
        {
            if registration.scope == .container || registration.scope == .weak {
                return true
            }
            next = registration.dependency
        }
        return false
    }
}

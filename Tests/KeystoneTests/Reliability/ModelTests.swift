import Keystone
import Testing

extension Reliability {
    // Random operation sequences run against real containers and the reference model
    // (``ContainerModel``) side by side, checked at every step.
    //
    // By default 200 sequences of 200 operations, from seeds derived from a fixed base, so a run is
    // repeatable. `KEYSTONE_MODEL_SEQUENCES` and `KEYSTONE_MODEL_STEPS` run more;
    // `KEYSTONE_MODEL_SEED=0x…` replays the one sequence a failure names. A failure prints the seed
    // and the shortest sequence the shrinker finds that still fails the same way, written as code.
    @Suite("Model-based checking of Container")
    struct ModelTests {
        /// Where the default run's sequence seeds are derived from.
        static let baseSeed: UInt64 = 0x4B45_5953_544F_4E45  // "KEYSTONE"

        /// The seeds of this run: the replayed one, or `sequences` derived from the base.
        static var seeds: [UInt64] {
            if let seed = Knobs.replaySeed {
                return [seed]
            }
            return (0..<Knobs.sequences).map { SplitMix64.derive(baseSeed, $0) }
        }

        @Test("Random sequences of registrations, resolves, resets and child containers behave as the model says")
        func randomSequencesMatchTheModel() {
            let harness = ModelHarness()
            let steps = Knobs.steps
            var reported = 0
            for seed in Self.seeds {
                let operations = OperationGenerator.sequence(seed: seed, count: steps)
                guard let failure = harness.run(operations).failure else { continue }
                let shortest = harness.shrink(operations, failure: failure)
                let replay = harness.run(shortest, transcript: true)
                Issue.record(
                    Comment(
                        rawValue: Self.report(
                            seed: seed,
                            steps: steps,
                            original: failure,
                            shortest: shortest,
                            replay: replay
                        )
                    )
                )
                reported += 1
                if reported == 3 {
                    break
                }
            }
        }

        @Test("The harness notices a wrong model and shrinks the failure to the few operations that show it")
        func harnessCatchesAFaultyModel() throws {
            // A model that forgets `.container` instances disagrees with the engine as soon as one is
            // resolved twice: a registration and two resolves, or one resolve of a Provider (two gets),
            // plus at most the registration of what the factory depends on.
            let harness = ModelHarness(fault: .forgetContainerInstances)
            var found: (operations: [Operation], failure: ModelFailure)?
            for index in 0..<50 {
                let operations = OperationGenerator.sequence(seed: SplitMix64.derive(Self.baseSeed, index), count: 200)
                if let failure = harness.run(operations).failure {
                    found = (operations, failure)
                    break
                }
            }
            let (operations, failure) = try #require(found, "the faulty model was never caught")
            #expect(failure.kind == "identity")
            let shortest = harness.shrink(operations, failure: failure)
            let transcript = harness.run(shortest, transcript: true).lines
            #expect((2...4).contains(shortest.count), "\(transcript)")
            guard case .resolve(_, let resolved, _, _, _) = shortest.last else {
                Issue.record("expected a resolve last: \(transcript)")
                return
            }
            let registered = shortest.compactMap { operation -> ModelKey? in
                guard case .register(_, let key, .container?, _) = operation else { return nil }
                return key
            }
            #expect(registered.contains(resolved), "\(transcript)")
            #expect(ModelHarness().run(shortest).failure == nil, "the engine itself agrees with the correct model")
        }

        @Test("The shrinker drops every operation the failure does not need")
        func shrinkerFindsTheShortestSequence() {
            // Fails when a 3 comes somewhere before a 7.
            let items = [1, 3, 5, 2, 8, 3, 9, 4, 7, 6, 7, 0]
            func fails(_ candidate: [Int]) -> Bool {
                guard let three = candidate.firstIndex(of: 3) else { return false }
                return candidate[three...].contains(7)
            }
            #expect(Reliability.shrink(items, stillFails: fails) == [3, 7])
            #expect(Reliability.shrink([42], stillFails: { $0 == [42] }) == [42])
        }

        @Test("The same seed generates the same sequence, and different seeds different ones")
        func generationIsDeterministic() {
            let seed = SplitMix64.derive(Self.baseSeed, 7)
            #expect(
                OperationGenerator.sequence(seed: seed, count: 300)
                    == OperationGenerator.sequence(seed: seed, count: 300)
            )
            #expect(
                OperationGenerator.sequence(seed: seed, count: 300)
                    != OperationGenerator.sequence(seed: seed &+ 1, count: 300)
            )
        }

        @Test("The generated sequences exercise every kind of operation: hits, misses, dependencies and cycles")
        func generationCoversTheOperations() {
            var kinds: Set<String> = []
            var styles: Set<Int> = []
            var hits = 0
            var misses = 0
            var composites = 0
            var cycles = 0
            var nestedMisses = 0
            let harness = ModelHarness()
            for index in 0..<20 {
                let operations = OperationGenerator.sequence(seed: SplitMix64.derive(Self.baseSeed, index), count: 200)
                for operation in operations {
                    kinds.insert(String(describing: operation).prefix { $0 != "(" }.description)
                    if case .resolve(_, _, _, let style, _) = operation {
                        styles.insert(style.rawValue)
                    }
                }
                for line in harness.run(operations, transcript: true).lines where line.contains("resolve") {
                    if line.contains("// instance") {
                        hits += 1
                        composites += line.contains(" holding [") ? 1 : 0
                    } else if line.contains("// nil") || line.contains("// throws") {
                        misses += 1
                        cycles += line.contains("// throws Circular dependency") ? 1 : 0
                        nestedMisses += line.contains("// throws notRegistered") && !line.contains("path: [],") ? 1 : 0
                    }
                }
            }
            #expect(kinds.count == 10, "\(kinds.sorted())")
            #expect(styles.count == ResolveStyle.allCases.count)
            #expect(hits > 500, "resolves that found a registration: \(hits)")
            #expect(misses > 200, "resolves that found none: \(misses)")
            #expect(composites > 50, "resolves of a factory with a dependency: \(composites)")
            #expect(cycles > 5, "resolves that found a cycle: \(cycles)")
            #expect(nestedMisses > 5, "resolves whose dependency was missing: \(nestedMisses)")
        }

        // MARK: - Counterexamples the model found, kept as plain tests

        @Test("A child's own registration wins over its parent's, even when the child has several of that service type")
        func childRegistrationShadowsParentWithSeveralVariants() {
            // Found by the model (`wrong-registration`), shrunk to: the parent has one registration of a
            // service type; the child registers the same key, then a second key of that service type.
            // Resolving the first key from the child must still find the child's registration.
            let parent = Container()
            parent.register(Dog.self) { (_, name: String) in Dog(name: "parent's \(name)") }
            let child = Container(parent: parent)
            child.register(Dog.self) { (_, name: String) in Dog(name: "child's \(name)") }
            #expect(child.resolve(Dog.self, argument: "Rex")?.name == "child's Rex")
            child.register(Dog.self, name: "other") { _ in Dog(name: "child's other") }
            #expect(child.resolve(Dog.self, argument: "Rex")?.name == "child's Rex")
            #expect(child.synchronize().resolve(Dog.self, argument: "Rex")?.name == "child's Rex")
            #expect(child.resolve(Dog.self, name: "other")?.name == "child's other")
            #expect(parent.resolve(Dog.self, argument: "Rex")?.name == "parent's Rex")

            // The same without arguments.
            let root = Container()
            root.register(Cat.self) { _ in Cat(name: "root's") }
            let leaf = Container(parent: root)
            leaf.register(Cat.self) { _ in Cat(name: "leaf's") }
            leaf.register(Cat.self, name: "other") { _ in Cat(name: "leaf's other") }
            #expect(leaf.resolve(Cat.self)?.name == "leaf's")
            #expect(leaf.synchronize().resolve(Cat.self)?.name == "leaf's")
        }

        @Test("A child's own registration with several arguments wins over its parent's")
        func childRegistrationWithArgumentsShadowsParent() {
            let parent = Container()
            parent.register(Dog.self, name: "blue") { (_, id: Int, name: String, _: Bool) in
                Dog(name: "parent's \(id) \(name)")
            }
            let child = Container(parent: parent)
            child.register(Dog.self, name: "blue") { (_, id: Int, name: String) in Dog(name: "child's \(id) \(name)") }
            child.register(Dog.self, name: "blue") { (_, id: Int, name: String, _: Bool) in
                Dog(name: "child's \(id) \(name)")
            }
            #expect(child.resolve(Dog.self, name: "blue", arguments: 30, "Rex", true)?.name == "child's 30 Rex")
            #expect(child.resolve(Dog.self, name: "blue", arguments: 30, "Rex")?.name == "child's 30 Rex")
        }

        /// The failure report: the seed to replay, the original failure, and the shortest sequence.
        static func report(
            seed: UInt64,
            steps: Int,
            original: ModelFailure,
            shortest: [Operation],
            replay: (failure: ModelFailure?, lines: [String])
        ) -> String {
            let hex = "0x" + String(seed, radix: 16, uppercase: true)
            var text = """
                Container disagrees with the model. Seed \(hex), \(steps) steps; \
                replay with KEYSTONE_MODEL_SEED=\(hex) KEYSTONE_MODEL_STEPS=\(steps).
                Original failure at \(original).
                Shortest reproduction (\(shortest.count) operations), which fails at \
                \(replay.failure.map(\.description) ?? "(no failure on replay!)"):

                """
            for line in replay.lines {
                text += "    \(line)\n"
            }
            return text
        }
    }
}

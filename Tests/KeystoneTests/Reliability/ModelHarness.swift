@testable import Keystone

extension Reliability {
    /// A disagreement between the engine and the model.
    struct ModelFailure: Error, CustomStringConvertible {
        /// The index of the failing operation.
        let step: Int
        /// What kind of disagreement: the shrinker keeps only sequences that fail the same way.
        let kind: String
        let message: String

        var description: String { "step \(step) [\(kind)]: \(message)" }
    }

    /// A deliberate mistake in the model, to check that the harness notices and shrinks well.
    enum ModelFault {
        case none
        /// The model forgets `.container` instances as soon as they are made.
        case forgetContainerInstances
    }

    /// Runs operation sequences against real containers and the model side by side, step by step.
    struct ModelHarness {
        var fault: ModelFault = .none

        /// Runs `operations` on fresh containers; returns the first disagreement, if any, and, when
        /// `transcript` is set, each step written as the code it ran with what it observed.
        func run(_ operations: [Operation], transcript: Bool = false) -> (failure: ModelFailure?, lines: [String]) {
            var run = Run(fault: fault, transcript: transcript)
            for (step, operation) in operations.enumerated() {
                if let failure = run.perform(operation, step: step) {
                    return (failure, run.lines)
                }
            }
            return (nil, run.lines)
        }

        /// The shortest sequence the shrinker finds that still fails as `failure` did.
        func shrink(_ operations: [Operation], failure: ModelFailure) -> [Operation] {
            let prefix = Array(operations[...failure.step])
            return Reliability.shrink(prefix) { candidate in
                run(candidate).failure?.kind == failure.kind
            }
        }
    }

    /// The state of one run: the engine's containers, the model, and the instances the test holds.
    private struct Run {
        let fault: ModelFault
        let transcript: Bool
        let mint = Mint()
        var containers = [Container()]
        var model = ContainerModel()
        /// The instances the test holds, oldest first.
        var held: [Probe] = []
        var lines: [String] = []

        init(fault: ModelFault, transcript: Bool) {
            self.fault = fault
            self.transcript = transcript
        }

        /// The step being run, and the last step the transcript has a line for.
        var step = 0
        var notedStep = -1

        /// Adds a line to the transcript, numbered with the step; a second line of the same step is
        /// indented instead.
        mutating func note(_ line: @autoclosure () -> String) {
            guard transcript else { return }
            let number = "\(step): "
            let prefix = notedStep == step ? String(repeating: " ", count: number.count) : number
            notedStep = step
            lines.append(prefix + line())
        }

        /// The resolve call as code.
        private func callText(_ key: ModelKey, on index: Int, arguments: ArgumentValues, style: ResolveStyle) -> String
        {
            let rest = "\(key.nameText)\(arguments.callText(for: key.signature)))"
            let type = "\(key.service)"
            return switch style {
            case .optional: "c\(index).resolve(\(type).self\(rest)"
            case .throwing: "try c\(index).resolveThrows(\(type).self\(rest)"
            case .result: "c\(index).resolveResult(\(type).self\(rest)"
            case .synchronized: "try c\(index).synchronize().resolveThrows(\(type).self\(rest)"
            case .provider: "let provider = try c\(index).resolveThrows(Provider<\(type)>.self\(rest); provider.get()"
            case .lazy: "let lazy = try c\(index).resolveThrows(Lazy<\(type)>.self\(rest); lazy.get()"
            }
        }

        /// The container an operation's number refers to: that one, or the newest if it does not exist
        /// (when the shrinker dropped the child it was made as, the next one made takes its place).
        func existing(_ number: Int) -> Int {
            min(number, containers.count - 1)
        }

        mutating func perform(_ operation: Operation, step: Int) -> ModelFailure? {
            self.step = step
            func fail(_ kind: String, _ message: String) -> ModelFailure {
                ModelFailure(step: step, kind: kind, message: message)
            }
            switch operation {
            case .addChild(let parent, let defaultScope):
                guard containers.count < Reliability.maximumContainers else {
                    note("// (no child added: \(Reliability.maximumContainers) containers exist)")
                    return nil
                }
                let parentIndex = existing(parent)
                containers.append(Container(parent: containers[parentIndex], defaultObjectScope: defaultScope.scope))
                let index = model.addChild(of: parentIndex, defaultScope: defaultScope)
                note("let c\(index) = Container(parent: c\(parentIndex), defaultObjectScope: \(defaultScope))")

            case .register(let container, let key, let scope, let dependency):
                let index = existing(container)
                let id = model.register(key, on: index, scope: scope, dependency: dependency)
                dispatch(
                    key.service,
                    RegisterVisitor(
                        container: containers[index],
                        key: key,
                        scope: scope?.scope,
                        registration: id,
                        mint: mint,
                        dependency: dependency
                    )
                )
                let arguments = key.signature == .none ? "r" : "r, \(key.signature)"
                let body =
                    dependency.map { dependency in
                        let call =
                            "try r.resolveThrows(\(dependency.service).self\(dependency.nameText)"
                            + "\(dependencyArguments.callText(for: dependency.signature)))"
                        return "probe(#\(id), holding: [\(call), \(call)])"
                    } ?? "probe(#\(id))"
                let scoped = scope.map { ".inObjectScope(\($0))" } ?? "  // default scope"
                note("c\(index).register(\(key.service).self\(key.nameText)) { \(arguments) in \(body) }\(scoped)")

            case .resolve(let container, let key, let arguments, let style, let keep):
                let index = existing(container)
                return resolve(key, on: index, arguments: arguments, style: style, keep: keep, step: step)

            case .hasAnyRegistration(let container, let service, let name):
                let index = existing(container)
                let actual = dispatch(service, HasAnyVisitor(container: containers[index], name: name))
                let expected = model.hasAnyRegistration(of: service, name: name, on: index)
                let nameText = name.map { ", name: \"\($0)\"" } ?? ""
                note("c\(index).hasAnyRegistration(of: \(service).self\(nameText))  // \(actual)")
                if actual != expected {
                    return fail(
                        "hasAnyRegistration",
                        "hasAnyRegistration(of: \(service)\(nameText)) on c\(index) is \(actual), expected \(expected)"
                    )
                }

            case .resetScope(let container, let scope):
                let index = existing(container)
                containers[index].resetObjectScope(scope.scope)
                model.reset(scope, service: nil, from: index)
                note("c\(index).resetObjectScope(\(scope))")

            case .resetService(let container, let scope, let service):
                let index = existing(container)
                containers[index].resetObjectScope(scope.scope, serviceType: service.metatype)
                model.reset(scope, service: service, from: index)
                note("c\(index).resetObjectScope(\(scope), serviceType: \(service).self)")

            case .removeAll(let container):
                let index = existing(container)
                containers[index].removeAll()
                model.removeAll(on: index)
                note("c\(index).removeAll()")

            case .unregister(let container, let key):
                let index = existing(container)
                let actual = containers[index].unregister(key.serviceKey)
                let expected = model.unregister(key, on: index)
                note("c\(index).unregister(ServiceKey(\(key)))  // \(actual), as DIActor.release does")
                if actual != expected {
                    return fail(
                        "unregister",
                        "unregister(\(key)) on c\(index) returned \(actual), expected \(expected)"
                    )
                }

            case .release(let which):
                guard !held.isEmpty else {
                    note("// (nothing held to release)")
                    return nil
                }
                let released = held.remove(at: which % held.count)
                note("held.remove(instance \(released.serial))")

            case .releaseAll:
                held.removeAll()
                note("held.removeAll()")
            }
            for index in containers.indices {
                let actual = containers[index].registeredCount()
                let expected = model.registeredCount(on: index)
                if actual != expected {
                    return fail("registeredCount", "c\(index).registeredCount() is \(actual), expected \(expected)")
                }
            }
            return nil
        }

        private mutating func resolve(
            _ key: ModelKey,
            on index: Int,
            arguments: ArgumentValues,
            style: ResolveStyle,
            keep: Bool,
            step: Int
        ) -> ModelFailure? {
            func fail(_ kind: String, _ message: String) -> ModelFailure {
                ModelFailure(step: step, kind: kind, message: "c\(index).\(style)(\(key)): " + message)
            }
            let heldSerials = Set(held.map(\.serial))
            let rendered = arguments.rendered(for: key.signature)
            let start = mint.lastSerial
            let outcome = dispatch(
                key.service,
                ResolveVisitor(resolver: containers[index], key: key, arguments: arguments, style: style, mint: mint)
            )
            let call = callText(key, on: index, arguments: arguments, style: style)
            let prediction = predictionModel().simulate(
                key,
                on: index,
                arguments: rendered,
                held: heldSerials,
                nextSerial: start + 1
            )

            switch (prediction.result, outcome) {
            case (_, .notAProbe(let type)):
                return fail("not-a-probe", "returned a \(type)")

            case (.failure, .failure(nil)):
                note("\(call)  // nil")
                return nil

            case (.failure(let expected), .failure(let error?)):
                note("\(call)  // throws \(Self.describe(error))")
                if error != expected.error {
                    return fail(
                        "wrong-error",
                        "threw \(Self.describe(error)), expected \(Self.describe(expected.error))"
                    )
                }
                return nil

            case (.failure(let expected), .success(let observations)):
                note("\(call)  // instance \(observations[0].probe.serial)")
                let stamp = observations[0].probe.stamp
                return fail(
                    "unexpected-success",
                    "expected \(Self.describe(expected.error)), yet it returned instance \(stamp.serial) of registration #\(stamp.registration)"
                )

            case (.success(let expected), .failure(let error)):
                note("\(call)  // failed")
                return fail(
                    "unexpected-failure",
                    "registration #\(expected.registration) should answer, yet it failed: \(error.map { Self.describe($0) } ?? "nil")"
                )

            case (.success(let expected), .success(let observations)):
                let first = observations[0]
                note("\(call)  // \(Self.describe(first.probe))\(keep ? ", held" : "")")
                if let failure = check(
                    first,
                    against: expected,
                    creating: prediction.simulation.created.count,
                    fail: fail
                ) {
                    return failure
                }
                model.commit(prediction.simulation)
                if observations.count == 2 {
                    let second = observations[1]
                    switch style {
                    case .lazy:
                        note("lazy.get()  // \(Self.describe(second.probe))")
                        if second.probe !== first.probe || second.after != second.before {
                            return fail(
                                "lazy-identity",
                                "a Lazy's second get() returned instance \(second.probe.serial), expected \(first.probe.serial) again"
                            )
                        }
                    default:
                        note("provider.get()  // \(Self.describe(second.probe)), while holding \(first.probe.serial)")
                        let again = predictionModel().simulate(
                            key,
                            on: index,
                            arguments: rendered,
                            held: heldSerials.union([first.probe.serial]),
                            nextSerial: second.before + 1
                        )
                        guard case .success(let expectedAgain) = again.result else {
                            return fail("model", "the prediction changed between two gets: \(again.result)")
                        }
                        if let failure = check(
                            second,
                            against: expectedAgain,
                            creating: again.simulation.created.count,
                            fail: fail
                        ) {
                            return failure
                        }
                        model.commit(again.simulation)
                    }
                }
                if keep {
                    held.append(contentsOf: observations.map(\.probe))
                }
                return nil
            }
        }

        /// The model predictions are made from: the model itself, or a deliberately wrong copy.
        private func predictionModel() -> ContainerModel {
            guard fault == .forgetContainerInstances else { return model }
            var forgetful = model
            for node in forgetful.nodes.indices {
                forgetful.reset(.container, service: nil, from: node)
            }
            return forgetful
        }

        /// Checks one observed instance, and the instances it holds, against the prediction, and that
        /// exactly the predicted number of factories ran.
        private func check(
            _ observation: Observation,
            against expected: ContainerModel.Expected,
            creating count: Int,
            fail: (String, String) -> ModelFailure
        ) -> ModelFailure? {
            if let (kind, message) = compare(observation.probe, expected, at: "the instance") {
                return fail(kind, message)
            }
            let runs = observation.after - observation.before
            if runs != count {
                return fail("identity", "\(runs) factory call(s) made instances, expected \(count)")
            }
            return nil
        }

        /// The first difference between `probe` and `expected`, as a failure kind and message.
        private func compare(_ probe: Probe, _ expected: ContainerModel.Expected, at place: String) -> (String, String)?
        {
            let stamp = probe.stamp
            if stamp.registration != expected.registration {
                return (
                    "wrong-registration",
                    "\(place) was made by registration #\(stamp.registration), expected #\(expected.registration)"
                )
            }
            switch expected {
            case .existing(_, let serial):
                if stamp.serial != serial {
                    return (
                        "identity", "\(place) is instance \(stamp.serial), expected the existing instance \(serial)"
                    )
                }
                // An existing instance keeps the arguments it was made with.
                return nil
            case .new(_, let serial, let arguments, let dependencies):
                if stamp.serial != serial {
                    let existing = serial > stamp.serial ? "an existing one" : "a later one"
                    return (
                        "identity",
                        "\(place) is instance \(stamp.serial) (\(existing)), expected a new instance, \(serial)"
                    )
                }
                if stamp.arguments != arguments {
                    return ("wrong-arguments", "\(place)'s factory received \(stamp.arguments), expected \(arguments)")
                }
                if stamp.dependencies.count != dependencies.count {
                    return (
                        "wrong-dependencies",
                        "\(place) holds \(stamp.dependencies.count) dependencies, expected \(dependencies.count)"
                    )
                }
                for (index, (actual, wanted)) in zip(stamp.dependencies, dependencies).enumerated() {
                    if let difference = compare(
                        actual,
                        wanted,
                        at: "dependency \(index + 1) of instance \(stamp.serial)"
                    ) {
                        return difference
                    }
                }
                return nil
            }
        }

        /// `instance 5 of #2` or `instance 5 of #2 holding [3, 3]`.
        private static func describe(_ probe: Probe) -> String {
            let holding = probe.stamp.dependencies.isEmpty ? "" : " holding \(probe.stamp.dependencies.map(\.serial))"
            return "instance \(probe.serial) of #\(probe.stamp.registration)\(holding)"
        }

        private static func describe(_ error: DIError) -> String {
            switch error {
            case .notRegistered(let key, let path, let candidates):
                "notRegistered(key: \(key), path: \(path), candidates: \(candidates.map(\.description).sorted()))"
            default:
                "\(error)"
            }
        }
    }
}

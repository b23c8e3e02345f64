import Foundation
import Keystone

// The vocabulary shared by the model tests: the services they register (probes that say which
// registration made them, from which arguments, and in which order), the parts of a registration key,
// and the dispatch from a service kind, known at run time, to its static type.

extension Reliability {
    /// What a factory stamps on the instance it makes.
    struct Stamp: Sendable {
        /// A number unique to the instance, in creation order (1, 2, …) within one run.
        let serial: Int
        /// The model's number of the registration whose factory made it.
        let registration: Int
        /// The runtime arguments the factory received, rendered by ``Signature/render(_:_:_:)``.
        let arguments: String
        /// What the factory resolved before making the instance, in order; the instance holds them.
        var dependencies: [Probe] = []
    }

    /// Every service the model registers is a probe, so every resolve can be checked for which
    /// registration answered it, with which arguments, and whether the instance is new.
    class Probe: @unchecked Sendable {
        // @unchecked: every stored property is a `let`; subclasses add none.
        let stamp: Stamp

        required init(_ stamp: Stamp) {
            self.stamp = stamp
        }

        var serial: Int { stamp.serial }
    }

    // Each subclass restates the conformance; none adds a stored property.
    final class AlphaProbe: Probe, @unchecked Sendable {}
    final class BetaProbe: Probe, @unchecked Sendable {}
    final class GammaProbe: Probe, GammaService, @unchecked Sendable {}
    /// One class per marker type, so that the model has enough distinct service types to make a
    /// container's registration table grow.
    final class NumberedProbe<Marker>: Probe, @unchecked Sendable {}

    /// A protocol service: registered and resolved as `any GammaService`.
    protocol GammaService: AnyObject, Sendable {}

    enum Marker0 {}
    enum Marker1 {}
    enum Marker2 {}
    enum Marker3 {}
    enum Marker4 {}
    enum Marker5 {}
    enum Marker6 {}
    enum Marker7 {}
    enum Marker8 {}
    enum Marker9 {}
    enum Marker10 {}
    enum Marker11 {}
    enum Marker12 {}
    enum Marker13 {}

    /// Mints stamps: serial numbers in creation order, and a count per registration of how many
    /// times its factory ran. Safe to use from factories running on several threads.
    final class Mint: @unchecked Sendable {
        // @unchecked: `serial` and `runs` are read and written only under `lock`.
        private let lock = NSLock()
        private var serial = 0
        private var runs: [Int: Int] = [:]

        func stamp(registration: Int, arguments: String, dependencies: [Probe] = []) -> Stamp {
            lock.lock()
            defer { lock.unlock() }
            serial += 1
            runs[registration, default: 0] += 1
            return Stamp(serial: serial, registration: registration, arguments: arguments, dependencies: dependencies)
        }

        /// The serial of the last instance made (0 before the first).
        var lastSerial: Int {
            lock.lock()
            defer { lock.unlock() }
            return serial
        }

        /// How many times the factory of `registration` ran.
        func runs(of registration: Int) -> Int {
            lock.lock()
            defer { lock.unlock() }
            return runs[registration, default: 0]
        }
    }

    // MARK: - Keys

    /// A service type, by number: 0 `AlphaProbe`, 1 `BetaProbe`, 2 `any GammaService`, 3… the numbered probes.
    struct ServiceKind: Hashable, Comparable, CustomStringConvertible {
        let index: Int

        static let count = 17
        static let all = (0..<count).map(ServiceKind.init(index:))
        /// The three services most operations use, so that registrations and resolves meet often.
        static let common = (0..<3).map(ServiceKind.init(index:))

        static func < (lhs: ServiceKind, rhs: ServiceKind) -> Bool { lhs.index < rhs.index }

        var metatype: Any.Type {
            dispatch(self, MetatypeVisitor())
        }

        var description: String {
            let text = String(describing: metatype)
            return index == 2 ? "(any \(text.replacingOccurrences(of: "any ", with: "")))" : text
        }
    }

    /// The registration names the model uses.
    static let names: [String?] = [nil, "red", "blue"]

    /// The runtime argument types of a registration or a resolve: zero to three arguments.
    enum Signature: Int, CaseIterable, CustomStringConvertible {
        case none
        case int
        case string
        case intString
        case intStringBool

        /// The `argumentsType` of the engine's key.
        var argumentsType: Any.Type {
            switch self {
            case .none: Void.self
            case .int: Int.self
            case .string: String.self
            case .intString: (Int, String).self
            case .intStringBool: (Int, String, Bool).self
            }
        }

        var description: String {
            switch self {
            case .none: "()"
            case .int: "(Int)"
            case .string: "(String)"
            case .intString: "(Int, String)"
            case .intStringBool: "(Int, String, Bool)"
            }
        }

        /// How a factory with this signature renders the arguments it received.
        func render(_ int: Int, _ string: String, _ bool: Bool) -> String {
            switch self {
            case .none: ""
            case .int: "\(int)"
            case .string: string
            case .intString: "\(int)|\(string)"
            case .intStringBool: "\(int)|\(string)|\(bool)"
            }
        }
    }

    /// The values a resolve passes (as many as its signature takes).
    struct ArgumentValues: Hashable {
        var int: Int
        var string: String
        var bool: Bool

        func rendered(for signature: Signature) -> String {
            signature.render(int, string, bool)
        }

        /// The argument list as the resolve call is written: `, argument: 3` or `, arguments: 3, "k"`.
        func callText(for signature: Signature) -> String {
            switch signature {
            case .none: ""
            case .int: ", argument: \(int)"
            case .string: ", argument: \"\(string)\""
            case .intString: ", arguments: \(int), \"\(string)\""
            case .intStringBool: ", arguments: \(int), \"\(string)\", \(bool)"
            }
        }
    }

    /// A registration key of the model.
    struct ModelKey: Hashable, CustomStringConvertible {
        var service: ServiceKind
        var name: String?
        var signature: Signature

        /// The engine's key for it.
        var serviceKey: ServiceKey {
            ServiceKey(serviceType: service.metatype, name: name, argumentsType: signature.argumentsType)
        }

        var description: String {
            var text = "\(service)"
            if let name {
                text += " named \"\(name)\""
            }
            if signature != .none {
                text += " with \(signature)"
            }
            return text
        }

        /// `, name: "red"` or nothing.
        var nameText: String {
            name.map { ", name: \"\($0)\"" } ?? ""
        }
    }

    /// The four built-in scopes.
    enum ScopeChoice: Int, CaseIterable, CustomStringConvertible {
        case transient
        case graph
        case container
        case weak

        var scope: ObjectScope {
            switch self {
            case .transient: .transient
            case .graph: .graph
            case .container: .container
            case .weak: .weak
            }
        }

        var description: String { ".\(String(describing: scope))" }
    }

    // MARK: - From a kind to a static type

    /// Something done with a service type known only at run time: ``dispatch(_:_:)`` calls `visit` with
    /// the static type of a ``ServiceKind`` and a function that makes its instances.
    protocol ServiceVisitor {
        associatedtype Output
        func visit<Service>(_ type: Service.Type, make: @escaping @Sendable (Stamp) -> Service) -> Output
    }

    static func dispatch<Visitor: ServiceVisitor>(_ kind: ServiceKind, _ visitor: Visitor) -> Visitor.Output {
        switch kind.index {
        case 0: visitor.visit(AlphaProbe.self, make: AlphaProbe.init)
        case 1: visitor.visit(BetaProbe.self, make: BetaProbe.init)
        case 2: visitor.visit((any GammaService).self, make: { GammaProbe($0) })
        case 3: visitor.visit(NumberedProbe<Marker0>.self, make: NumberedProbe<Marker0>.init)
        case 4: visitor.visit(NumberedProbe<Marker1>.self, make: NumberedProbe<Marker1>.init)
        case 5: visitor.visit(NumberedProbe<Marker2>.self, make: NumberedProbe<Marker2>.init)
        case 6: visitor.visit(NumberedProbe<Marker3>.self, make: NumberedProbe<Marker3>.init)
        case 7: visitor.visit(NumberedProbe<Marker4>.self, make: NumberedProbe<Marker4>.init)
        case 8: visitor.visit(NumberedProbe<Marker5>.self, make: NumberedProbe<Marker5>.init)
        case 9: visitor.visit(NumberedProbe<Marker6>.self, make: NumberedProbe<Marker6>.init)
        case 10: visitor.visit(NumberedProbe<Marker7>.self, make: NumberedProbe<Marker7>.init)
        case 11: visitor.visit(NumberedProbe<Marker8>.self, make: NumberedProbe<Marker8>.init)
        case 12: visitor.visit(NumberedProbe<Marker9>.self, make: NumberedProbe<Marker9>.init)
        case 13: visitor.visit(NumberedProbe<Marker10>.self, make: NumberedProbe<Marker10>.init)
        case 14: visitor.visit(NumberedProbe<Marker11>.self, make: NumberedProbe<Marker11>.init)
        case 15: visitor.visit(NumberedProbe<Marker12>.self, make: NumberedProbe<Marker12>.init)
        case 16: visitor.visit(NumberedProbe<Marker13>.self, make: NumberedProbe<Marker13>.init)
        default: preconditionFailure("no service kind \(kind.index)")
        }
    }

    struct MetatypeVisitor: ServiceVisitor {
        func visit<Service>(_ type: Service.Type, make: @escaping @Sendable (Stamp) -> Service) -> Any.Type {
            type
        }
    }

    /// The arguments a factory passes when it resolves its dependency.
    static let dependencyArguments = ArgumentValues(int: 7, string: "dependency", bool: false)

    /// Registers a probe factory for `key` on `container`, in `scope` (the container's default when
    /// `nil`). The factory stamps each instance with `registration` and the arguments it received.
    /// With a `dependency`, the factory first resolves it twice, with ``dependencyArguments``, from the
    /// resolver it is handed, and the instance holds both.
    struct RegisterVisitor: ServiceVisitor {
        let container: Container
        let key: ModelKey
        let scope: ObjectScope?
        let registration: Int
        let mint: Mint
        var dependency: ModelKey? = nil

        func visit<Service>(_ type: Service.Type, make: @escaping @Sendable (Stamp) -> Service) {
            let mint = mint
            let registration = registration
            let signature = key.signature
            let dependency = dependency
            func made(_ resolver: any Resolver, _ int: Int, _ string: String, _ bool: Bool) throws(DIError) -> Service {
                var dependencies: [Probe] = []
                if let dependency {
                    let visitor = DependencyVisitor(resolver: resolver, key: dependency)
                    dependencies.append(try dispatch(dependency.service, visitor).get())
                    dependencies.append(try dispatch(dependency.service, visitor).get())
                }
                return make(
                    mint.stamp(
                        registration: registration,
                        arguments: signature.render(int, string, bool),
                        dependencies: dependencies
                    )
                )
            }
            let entry: ServiceEntry<Service>
            switch signature {
            case .none:
                entry = container.register(type, name: key.name) { r in try made(r, 0, "", false) }
            case .int:
                entry = container.register(type, name: key.name) { (r, int: Int) in try made(r, int, "", false) }
            case .string:
                entry = container.register(type, name: key.name) { (r, string: String) in try made(r, 0, string, false)
                }
            case .intString:
                entry = container.register(type, name: key.name) { (r, int: Int, string: String) in
                    try made(r, int, string, false)
                }
            case .intStringBool:
                entry = container.register(type, name: key.name) { (r, int: Int, string: String, bool: Bool) in
                    try made(r, int, string, bool)
                }
            }
            if let scope {
                entry.inObjectScope(scope)
            }
        }
    }

    /// What a factory does to resolve its dependency: `resolveThrows` with ``dependencyArguments``.
    struct DependencyVisitor: ServiceVisitor {
        let resolver: any Resolver
        let key: ModelKey

        func visit<Service>(_ type: Service.Type, make: @escaping @Sendable (Stamp) -> Service) -> Result<
            Probe, DIError
        > {
            do {
                let value = try Reliability.resolveThrows(
                    type,
                    from: resolver,
                    key: key,
                    arguments: dependencyArguments
                )
                // Every registration of the model makes probes.
                return .success(value as! Probe)
            } catch {
                return .failure(error)
            }
        }
    }

    /// How a resolve is made.
    enum ResolveStyle: Int, CaseIterable, CustomStringConvertible {
        /// `resolve`, which returns `nil` on failure.
        case optional
        /// `resolveThrows`.
        case throwing
        /// `resolveResult`.
        case result
        /// `resolveThrows` through a new `synchronize()` view.
        case synchronized
        /// `resolveThrows(Provider<S>.self, …)`, then `get()` twice, holding the first instance meanwhile:
        /// two resolves.
        case provider
        /// `resolveThrows(Lazy<S>.self, …)`, then `get()` twice: one resolve, then the same instance.
        case lazy

        var description: String {
            switch self {
            case .optional: "resolve"
            case .throwing: "resolveThrows"
            case .result: "resolveResult"
            case .synchronized: "synchronize().resolveThrows"
            case .provider: "resolveThrows(Provider<…>)"
            case .lazy: "resolveThrows(Lazy<…>)"
            }
        }
    }

    /// One instance a resolve returned, with the mint's serial before and after the call that made or
    /// found it: a new instance is `before + 1` and leaves `after == before + 1`; a reused one leaves
    /// `after == before`.
    struct Observation {
        let probe: Probe
        let before: Int
        let after: Int
    }

    /// What a resolve gave.
    enum Outcome {
        /// The instances observed, in order: one, or two for `.provider` and `.lazy`.
        case success([Observation])
        /// The error; `nil` for `.optional`, which only says `nil`.
        case failure(DIError?)
        /// The resolved value was not a probe: the engine returned something else.
        case notAProbe(String)
    }

    /// Resolves `key` from `resolver` in `style`, passing `arguments`.
    struct ResolveVisitor: ServiceVisitor {
        let resolver: any Resolver
        let key: ModelKey
        let arguments: ArgumentValues
        let style: ResolveStyle
        let mint: Mint

        func visit<Service>(_ type: Service.Type, make: @escaping @Sendable (Stamp) -> Service) -> Outcome {
            switch style {
            case .optional:
                let before = mint.lastSerial
                guard let value = Reliability.resolve(type, from: resolver, key: key, arguments: arguments) else {
                    return .failure(nil)
                }
                return observe(value, before: before)
            case .throwing, .synchronized:
                let source: any Resolver =
                    style == .synchronized
                    ? (resolver as? Container)?.synchronize() ?? resolver
                    : resolver
                let before = mint.lastSerial
                do {
                    let value = try Reliability.resolveThrows(type, from: source, key: key, arguments: arguments)
                    return observe(value, before: before)
                } catch {
                    return .failure(error)
                }
            case .result:
                let before = mint.lastSerial
                switch Reliability.resolveResult(type, from: resolver, key: key, arguments: arguments) {
                case .success(let value): return observe(value, before: before)
                case .failure(let error): return .failure(error)
                }
            case .provider:
                do {
                    let provider = try Reliability.resolveThrows(
                        Provider<Service>.self,
                        from: resolver,
                        key: key,
                        arguments: arguments
                    )
                    let before = mint.lastSerial
                    let first = try provider.get()
                    let middle = mint.lastSerial
                    let second = try provider.get()
                    let after = mint.lastSerial
                    guard let one = first as? Probe, let two = second as? Probe else {
                        return .notAProbe("\(Swift.type(of: first)), \(Swift.type(of: second))")
                    }
                    return .success([
                        Observation(probe: one, before: before, after: middle),
                        Observation(probe: two, before: middle, after: after),
                    ])
                } catch {
                    return .failure(error)
                }
            case .lazy:
                do {
                    let lazy = try Reliability.resolveThrows(
                        Lazy<Service>.self,
                        from: resolver,
                        key: key,
                        arguments: arguments
                    )
                    let before = mint.lastSerial
                    let first = try lazy.get()
                    let middle = mint.lastSerial
                    let second = try lazy.get()
                    let after = mint.lastSerial
                    guard let one = first as? Probe, let two = second as? Probe else {
                        return .notAProbe("\(Swift.type(of: first)), \(Swift.type(of: second))")
                    }
                    return .success([
                        Observation(probe: one, before: before, after: middle),
                        Observation(probe: two, before: middle, after: after),
                    ])
                } catch {
                    return .failure(error)
                }
            }
        }

        private func observe<Service>(_ value: Service, before: Int) -> Outcome {
            guard let probe = value as? Probe else {
                return .notAProbe("\(Swift.type(of: value))")
            }
            return .success([Observation(probe: probe, before: before, after: mint.lastSerial)])
        }
    }

    /// `hasAnyRegistration(of:name:)` for a kind.
    struct HasAnyVisitor: ServiceVisitor {
        let container: Container
        let name: String?

        func visit<Service>(_ type: Service.Type, make: @escaping @Sendable (Stamp) -> Service) -> Bool {
            container.hasAnyRegistration(of: type, name: name)
        }
    }

    // MARK: - The resolve overloads, by signature

    static func resolve<Service>(
        _ type: Service.Type,
        from resolver: any Resolver,
        key: ModelKey,
        arguments a: ArgumentValues
    ) -> Service? {
        switch key.signature {
        case .none: resolver.resolve(type, name: key.name)
        case .int: resolver.resolve(type, name: key.name, argument: a.int)
        case .string: resolver.resolve(type, name: key.name, argument: a.string)
        case .intString: resolver.resolve(type, name: key.name, arguments: a.int, a.string)
        case .intStringBool: resolver.resolve(type, name: key.name, arguments: a.int, a.string, a.bool)
        }
    }

    static func resolveThrows<Service>(
        _ type: Service.Type,
        from resolver: any Resolver,
        key: ModelKey,
        arguments a: ArgumentValues
    ) throws(DIError) -> Service {
        switch key.signature {
        case .none: try resolver.resolveThrows(type, name: key.name)
        case .int: try resolver.resolveThrows(type, name: key.name, argument: a.int)
        case .string: try resolver.resolveThrows(type, name: key.name, argument: a.string)
        case .intString: try resolver.resolveThrows(type, name: key.name, arguments: a.int, a.string)
        case .intStringBool: try resolver.resolveThrows(type, name: key.name, arguments: a.int, a.string, a.bool)
        }
    }

    static func resolveResult<Service>(
        _ type: Service.Type,
        from resolver: any Resolver,
        key: ModelKey,
        arguments a: ArgumentValues
    ) -> Result<Service, DIError> {
        switch key.signature {
        case .none: resolver.resolveResult(type, name: key.name)
        case .int: resolver.resolveResult(type, name: key.name, argument: a.int)
        case .string: resolver.resolveResult(type, name: key.name, argument: a.string)
        case .intString: resolver.resolveResult(type, name: key.name, arguments: a.int, a.string)
        case .intStringBool: resolver.resolveResult(type, name: key.name, arguments: a.int, a.string, a.bool)
        }
    }
}

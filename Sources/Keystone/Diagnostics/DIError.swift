/// Why a resolve failed, with what was asked, what exists nearby and how to fix it.
///
/// `resolveThrows` throws it and `resolveResult` returns it; plain `resolve` turns it into `nil`.
/// Its ``description`` is written to be read in a test failure or a crash log:
///
/// ```swift
/// do {
///     _ = try container.resolveThrows(Animal.self, name: "dog")
/// } catch {
///     print(error)
///     // No registration for Animal named "dog".
///     // Registered for Animal: Animal named "cat".
///     // Fix: register it with container.register(Animal.self, name: "dog") { ... }, or resolve one of the above.
/// }
/// ```
public enum DIError: Error, CustomStringConvertible, Equatable, Sendable {
    /// Nothing is registered under `key` in the container or its ancestors.
    ///
    /// - `path` lists the resolutions in flight that needed it, outermost first, not including `key`;
    ///   it is empty for a top-level resolve.
    /// - `candidates` lists the registrations of the same service type under another name or other
    ///   argument types: the near misses a typo or a wrong argument type leads to.
    case notRegistered(key: ServiceKey, path: [ServiceKey], candidates: [ServiceKey])

    /// The factories form a cycle that no `initCompleted` breaks: resolving the first key of `path`
    /// leads back to it, for example `A -> B -> A`.
    case circularDependency(path: [ServiceKey])

    /// Resolutions nested deeper than `limit` while serving one call, with no cycle among them: `path`
    /// is the chain, outermost first, ending with the key that would have gone deeper. Usually a factory
    /// that resolves its own registration with ever new runtime arguments and never stops.
    case depthLimitExceeded(path: [ServiceKey], limit: Int)

    /// A factory or an `initCompleted` action threw `underlying` while resolving `key`.
    ///
    /// `path` lists the resolutions in flight that led to `key`, outermost first, not including `key`.
    case factoryFailed(key: ServiceKey, path: [ServiceKey], underlying: any Error)

    /// The registration found for `key` is forwarded from another service type whose instance,
    /// of type `actualType`, is not a `key.serviceType`.
    case typeMismatch(key: ServiceKey, actualType: Any.Type)

    /// A `Lazy` or `Provider` was used after the container it came from was deallocated.
    case containerDeallocated(key: ServiceKey)

    /// A call that the API allows only in a certain state was made in another, for example
    /// `Registry.performStartup()` without a root module. `message` says what happened and how to fix it.
    case invalidUsage(message: String)

    /// A synchronous resolve reached `key`, whose factory is asynchronous (`registerAsync`), and no
    /// instance of it exists yet. `path` lists the resolutions in flight that led to `key`.
    ///
    /// Resolve it with `resolveAsync`, or create the `.container` instances once at launch with
    /// ``Container/warmUp()``: from then on a synchronous resolve returns the instance.
    case asyncResolutionRequired(key: ServiceKey, path: [ServiceKey])

    /// A synchronous resolve off the main actor reached `key`, whose factory must run on the main actor
    /// (`register(_:name:mainActorFactory:)`), and no instance of it exists yet. `path` lists the
    /// resolutions in flight that led to `key`.
    ///
    /// Resolve it on the main actor, or with `resolveAsync`, which runs the factory there.
    case mainActorRequired(key: ServiceKey, path: [ServiceKey])

    /// Disposal handlers threw: every handler ran, and these are their errors, each a
    /// ``factoryFailed(key:path:underlying:)`` naming the registration whose instance was disposed.
    case disposalFailed([DIError])

    /// An instance kept by its container (`.container`, `.multiton`) obtained, during its creation,
    /// something from a registration of a container below it in the hierarchy: `key` is the kept
    /// service, `captured` the key registered lower down, and `path` the resolutions that led from
    /// `key` to `captured`, outermost first.
    ///
    /// The kept instance would go on using what it captured after the lower container is gone, for
    /// example a parent's `.container` service first resolved through a child, whose override of a
    /// dependency its factory picked up. Register the dependency in the parent, give the holder a
    /// shorter scope, or register the holder in the child.
    // Indirect: its two keys would make every `DIError` larger than the resolve path moves inline (its
    // typed throws and `DIError?` checks then go through outlined value witnesses: +60 to +140
    // instructions a resolve on rows `transient` and `failed`).
    indirect case captiveDependency(key: ServiceKey, captured: ServiceKey, path: [ServiceKey])

    /// The key the failure is about: the missing key, the first key of a cycle, the key whose
    /// factory failed, or the kept service of a captive dependency. `nil` for ``invalidUsage(message:)``.
    public var key: ServiceKey? {
        switch self {
        case .notRegistered(let key, _, _), .factoryFailed(let key, _, _), .typeMismatch(let key, _),
            .containerDeallocated(let key), .asyncResolutionRequired(let key, _), .mainActorRequired(let key, _),
            .captiveDependency(let key, _, _):
            key
        case .circularDependency(let path):
            path.first
        case .depthLimitExceeded(let path, _):
            path.last
        case .invalidUsage:
            nil
        case .disposalFailed(let errors):
            errors.first?.key
        }
    }

    /// A message that names what was asked, what exists nearby, and how to fix it.
    public var description: String {
        switch self {
        case .notRegistered(let key, let path, let candidates):
            var lines = ["No registration for \(key)."]
            if !path.isEmpty {
                lines.append("Needed by: \(Self.render(path + [key])).")
            }
            if candidates.isEmpty {
                lines.append(
                    "Nothing else is registered for \(key.serviceType); "
                        + "register it with \(Self.registrationHint(for: key)) before resolving it."
                )
            } else {
                let list = candidates.map(\.description).joined(separator: "; ")
                lines.append("Registered for \(key.serviceType): \(list).")
                lines.append(
                    "Fix: register it with \(Self.registrationHint(for: key)), or resolve one of the registrations "
                        + "above (names and argument types must match exactly; an argument's static type is what counts)."
                )
            }
            return lines.joined(separator: "\n")
        case .circularDependency(let path):
            return "Circular dependency: \(Self.render(path)).\n"
                + "Fix: let one of these factories stop resolving the next in its initializer and inject it in "
                + ".initCompleted { resolver, instance in ... } instead, with a scope other than .transient "
                + "(or use Lazy/Provider)."
        case .depthLimitExceeded(let path, let limit):
            return "Resolutions nested deeper than \(limit) levels: \(Self.render(path)).\n"
                + "No registration repeats with the same arguments, so this is not a cycle, but it does not end. "
                + "Fix: make the recursion stop (a factory that resolves its own registration must reach a case "
                + "that resolves nothing more), or flatten the chain."
        case .factoryFailed(let key, let path, let underlying):
            var text = "The factory for \(key) threw: \(underlying)"
            if !path.isEmpty {
                text += "\nWhile resolving: \(Self.render(path + [key]))."
            }
            return text
        case .typeMismatch(let key, let actualType):
            return "The registration forwarded to \(key) produced a \(actualType), which is not a \(key.serviceType).\n"
                + "Fix: forward only to types the registered instance conforms to."
        case .containerDeallocated(let key):
            return "A Lazy or Provider of \(key) was used after its container was deallocated.\n"
                + "Fix: keep the container alive as long as the objects that hold its Lazy and Provider values."
        case .invalidUsage(let message):
            return message
        case .asyncResolutionRequired(let key, let path):
            var text = "\(key) is created by an async factory, and no instance exists yet for a synchronous resolve."
            if !path.isEmpty {
                text += "\nNeeded by: \(Self.render(path + [key]))."
            }
            return text
                + "\nFix: resolve it with try await resolver.resolveAsync(\(key.serviceType).self), or make it .container-scoped "
                + "and call try await container.warmUp() at launch, after which synchronous resolves return it."
        case .mainActorRequired(let key, let path):
            var text =
                "\(key) is created by a main-actor factory, and this synchronous resolve is not on the main actor."
            if !path.isEmpty {
                text += "\nNeeded by: \(Self.render(path + [key]))."
            }
            return text
                + "\nFix: resolve it on the main actor, or with try await resolver.resolveAsync(\(key.serviceType).self), "
                + "which runs the factory there; a .container instance created once is then returned anywhere."
        case .disposalFailed(let errors):
            return "\(errors.count) disposal handler(s) threw; every handler ran and every instance was dropped:\n"
                + errors.map { "- \($0)" }.joined(separator: "\n")
        case .captiveDependency(let key, let captured, let path):
            var text =
                "\(key) is kept by its container, but its creation obtained \(captured) from a container below "
                + "it in the hierarchy: the kept instance would outlive that container and go on using what it captured."
            if !path.isEmpty {
                text += "\nCaptured through: \(Self.render(path))."
            }
            return text
                + "\nFix: register \(captured) in the container that keeps \(key) (the parent), give \(key) a "
                + "shorter scope (.graph or .transient), or register \(key) in the child container too."
        }
    }

    /// Whether two errors report the same failure: the same case, keys and paths (near misses in any
    /// order, an underlying error by its type and description).
    public static func == (lhs: DIError, rhs: DIError) -> Bool {
        switch (lhs, rhs) {
        case (.notRegistered(let lk, let lp, let lc), .notRegistered(let rk, let rp, let rc)):
            lk == rk && lp == rp && Set(lc) == Set(rc)
        case (.circularDependency(let lp), .circularDependency(let rp)):
            lp == rp
        case (.depthLimitExceeded(let lp, let ll), .depthLimitExceeded(let rp, let rl)):
            lp == rp && ll == rl
        case (.factoryFailed(let lk, let lp, let lu), .factoryFailed(let rk, let rp, let ru)):
            lk == rk && lp == rp && type(of: lu) == type(of: ru) && String(describing: lu) == String(describing: ru)
        case (.typeMismatch(let lk, let lt), .typeMismatch(let rk, let rt)):
            lk == rk && lt == rt
        case (.containerDeallocated(let lk), .containerDeallocated(let rk)):
            lk == rk
        case (.invalidUsage(let lm), .invalidUsage(let rm)):
            lm == rm
        case (.asyncResolutionRequired(let lk, let lp), .asyncResolutionRequired(let rk, let rp)),
            (.mainActorRequired(let lk, let lp), .mainActorRequired(let rk, let rp)):
            lk == rk && lp == rp
        case (.disposalFailed(let l), .disposalFailed(let r)):
            l == r
        case (.captiveDependency(let lk, let lc, let lp), .captiveDependency(let rk, let rc, let rp)):
            lk == rk && lc == rc && lp == rp
        default:
            false
        }
    }

    /// `A -> B -> C`.
    static func render(_ path: [ServiceKey]) -> String {
        path.map(\.description).joined(separator: " -> ")
    }

    /// `container.register(Animal.self, name: "dog") { resolver, arg1 in ... }`.
    private static func registrationHint(for key: ServiceKey) -> String {
        let name = key.name.map { ", name: \"\($0)\"" } ?? ""
        return
            "container.register(\(key.serviceType).self\(name)) { \(key.takesArguments ? "resolver, arguments..." : "resolver") in ... }"
    }
}

/// Builds a container from assemblies: every assembly registers first, then every assembly's
/// ``Assembly/loaded(resolver:)`` runs.
///
/// ```swift
/// let assembler = Assembler([NetworkAssembly(), StorageAssembly()])
/// let client = assembler.resolver.resolve(HTTPClient.self)
///
/// let feature = Assembler([ProfileAssembly()], parent: assembler)  // a child container
/// ```
public final class Assembler {
    private let container: Container

    /// The assembled container, to resolve from.
    public var resolver: any Resolver {
        container
    }

    /// Creates an assembler over `container` (a new one by default), without assemblies yet.
    public init(container: Container? = Container()) {
        self.container = container ?? Container()
    }

    /// Creates an assembler over a new container whose parent is the container of `parentAssembler`.
    public init(parentAssembler: Assembler?, defaultObjectScope: ObjectScope = .graph, behaviors: [any Behavior] = []) {
        container = Container(
            parent: parentAssembler?.container,
            defaultObjectScope: defaultObjectScope,
            behaviors: behaviors
        )
    }

    /// Creates an assembler over `container` and applies `assemblies`.
    public init(_ assemblies: [any Assembly], container: Container = Container()) {
        self.container = container
        run(assemblies)
    }

    /// Creates an assembler over a new child of `parent`'s container and applies `assemblies`.
    public init(
        _ assemblies: [any Assembly],
        parent: Assembler?,
        defaultObjectScope: ObjectScope = .graph,
        behaviors: [any Behavior] = []
    ) {
        container = Container(parent: parent?.container, defaultObjectScope: defaultObjectScope, behaviors: behaviors)
        run(assemblies)
    }

    /// Creates an assembler over `container` and applies `assemblies`.
    @available(*, deprecated, renamed: "init(_:container:)", message: "It never throws.")
    public convenience init(assemblies: [any Assembly], container: Container? = Container()) throws {
        self.init(assemblies, container: container ?? Container())
    }

    /// Creates an assembler over a new child of `parentAssembler`'s container and applies `assemblies`.
    @available(*, deprecated, renamed: "init(_:parent:)", message: "It never throws.")
    public convenience init(assemblies: [any Assembly], parentAssembler: Assembler?) throws {
        self.init(assemblies, parent: parentAssembler)
    }

    /// Applies one more assembly.
    public func apply(assembly: any Assembly) {
        run([assembly])
    }

    /// Applies more assemblies: all register, then all are told they are loaded.
    public func apply(assemblies: [any Assembly]) {
        run(assemblies)
    }

    private func run(_ assemblies: [any Assembly]) {
        for assembly in assemblies {
            assembly.assemble(container: container)
        }
        for assembly in assemblies {
            assembly.loaded(resolver: container)
        }
    }
}

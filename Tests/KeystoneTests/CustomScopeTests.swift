import Keystone
import Testing

/// Custom scopes built on each public storage, and scopes of the test's own.
@Suite("Custom scopes over the public storages")
struct CustomScopeStorageTests {
    final class Token {
        let serial: Int
        init(serial: Int) { self.serial = serial }
    }

    struct Stamp {
        let serial: Int
    }

    /// Hands out tokens numbered from 1, so a test can tell which factory call made an instance.
    final class Mint {
        private(set) var made = 0
        func token() -> Token {
            made += 1
            return Token(serial: made)
        }
        func stamp() -> Stamp {
            made += 1
            return Stamp(serial: made)
        }
    }

    /// Storage that records what the container asks of it and forwards to `PermanentStorage`'s behaviour.
    final class RecordingStorage: InstanceStorage {
        var instance: Any?
        var reads: [GraphIdentifier] = []
        var writes: [GraphIdentifier] = []
        var completions = 0

        func graphResolutionCompleted() { completions += 1 }

        func instance(inGraph graph: GraphIdentifier) -> Any? {
            reads.append(graph)
            return instance
        }

        func setInstance(_ instance: Any?, inGraph graph: GraphIdentifier) {
            writes.append(graph)
            self.instance = instance
        }
    }

    /// Storage that keeps nothing but counts what it was given.
    final class Forgetful: InstanceStorage {
        var given = 0
        var instance: Any? {
            get { nil }
            set { given += newValue == nil ? 0 : 1 }
        }
    }

    /// A scope written from scratch: a new `PermanentStorage` per registration, counted.
    final class CountingScope: ObjectScopeProtocol {
        private(set) var storagesMade = 0
        func makeStorage() -> any InstanceStorage {
            storagesMade += 1
            return PermanentStorage()
        }
    }

    // MARK: PermanentStorage

    @Test("A scope over PermanentStorage returns the first instance until the scope is reset")
    func permanent() {
        let mint = Mint()
        let session = ObjectScope(storageFactory: PermanentStorage.init, description: "session")
        let container = Container()
        container.register(Token.self) { _ in mint.token() }.inObjectScope(session)

        #expect(container.resolve(Token.self)?.serial == 1)
        #expect(container.resolve(Token.self)?.serial == 1)
        #expect(mint.made == 1)
        container.resetObjectScope(session)
        #expect(container.resolve(Token.self)?.serial == 2)
        #expect(container.resolve(Token.self)?.serial == 2)
        #expect(session.description == "session")
    }

    @Test("A scope over PermanentStorage keeps a value type too: its factory runs once")
    func permanentValue() {
        let mint = Mint()
        let scope = ObjectScope(storageFactory: PermanentStorage.init)
        let container = Container()
        container.register(Stamp.self) { _ in mint.stamp() }.inObjectScope(scope)

        #expect(container.resolve(Stamp.self)?.serial == 1)
        #expect(container.resolve(Stamp.self)?.serial == 1)
        #expect(mint.made == 1)
        #expect(scope.description == "")
    }

    @Test("An instance already in a custom storage is resolved without calling the factory")
    func presetInstance() {
        let storage = PermanentStorage()
        let preset = Token(serial: 99)
        storage.instance = preset
        let container = Container()
        let mint = Mint()
        container.register(Token.self) { _ in mint.token() }
            .inObjectScope(ObjectScope(storageFactory: { storage }))

        #expect(container.resolve(Token.self) === preset)
        #expect(mint.made == 0)
    }

    // MARK: TransientStorage

    @Test("A scope over TransientStorage calls the factory on every resolve, within one graph too")
    func transient() {
        final class Pair {
            let first: Token
            let second: Token
            init(first: Token, second: Token) {
                self.first = first
                self.second = second
            }
        }
        let mint = Mint()
        let scope = ObjectScope(storageFactory: TransientStorage.init, description: "every time")
        let container = Container()
        container.register(Token.self) { _ in mint.token() }.inObjectScope(scope)
        container.register(Pair.self) { r in Pair(first: r.resolve(Token.self)!, second: r.resolve(Token.self)!) }

        let pair = container.resolve(Pair.self)
        #expect(pair?.first.serial == 1)
        #expect(pair?.second.serial == 2)
        #expect(container.resolve(Token.self)?.serial == 3)
        #expect(mint.made == 3)
    }

    @Test("TransientStorage ignores what it is given, directly and per graph")
    func transientStorageDirectly() {
        let storage = TransientStorage()
        let graph = GraphIdentifier()
        storage.instance = Token(serial: 1)
        #expect(storage.instance == nil)
        storage.setInstance(Token(serial: 2), inGraph: graph)
        #expect(storage.instance(inGraph: graph) == nil)
        #expect(storage.instance == nil)
    }

    // MARK: GraphStorage

    @Test("A scope over GraphStorage shares an instance within one resolve and makes a new one for the next")
    func graph() {
        final class Pair {
            let first: Token
            let second: Token
            init(first: Token, second: Token) {
                self.first = first
                self.second = second
            }
        }
        let mint = Mint()
        let scope = ObjectScope(storageFactory: GraphStorage.init, description: "per graph")
        let container = Container()
        container.register(Token.self) { _ in mint.token() }.inObjectScope(scope)
        container.register(Pair.self) { r in Pair(first: r.resolve(Token.self)!, second: r.resolve(Token.self)!) }

        let pair = container.resolve(Pair.self)
        #expect(pair?.first.serial == 1)
        #expect(pair?.first === pair?.second)
        let next = container.resolve(Pair.self)
        #expect(next?.first.serial == 2)
        #expect(next?.first === next?.second)
        #expect(container.resolve(Token.self)?.serial == 3)
    }

    @Test("A scope over GraphStorage finds a graph's instance again while it is alive, and not after")
    func graphRestored() throws {
        let mint = Mint()
        let scope = ObjectScope(storageFactory: GraphStorage.init)
        let container = Container()
        var graph: GraphIdentifier?
        container.register(Token.self) { r in
            graph = r.resolve(GraphIdentifier.self)
            return mint.token()
        }
        .inObjectScope(scope)

        var first = container.resolve(Token.self)
        let identifier = try #require(graph)
        // No local holds the instance found again: only `first` keeps it alive.
        #expect(container.withObjectGraph(identifier) { $0.resolve(Token.self) } === first)
        #expect(mint.made == 1)

        weak var released: Token?
        released = first
        first = nil
        #expect(released == nil)
        let remade = container.withObjectGraph(identifier) { $0.resolve(Token.self) }
        #expect(remade?.serial == 2)
    }

    @Test("GraphStorage holds an instance strongly until its graph completes, then weakly, per graph")
    func graphStorageDirectly() {
        let storage = GraphStorage()
        let graph = GraphIdentifier()
        let other = GraphIdentifier()
        var token: Token? = Token(serial: 7)
        storage.setInstance(token, inGraph: graph)
        #expect(storage.instance as? Token === token)
        #expect(storage.instance(inGraph: graph) as? Token === token)
        #expect(storage.instance(inGraph: other) == nil)

        storage.graphResolutionCompleted()
        #expect(storage.instance == nil)
        #expect(storage.instance(inGraph: graph) as? Token === token)

        weak var released: Token?
        released = token
        token = nil
        #expect(released == nil)
        #expect(storage.instance(inGraph: graph) == nil)

        // A later graph still stores and finds its own instance after the dead one is swept.
        let later = Token(serial: 8)
        storage.setInstance(later, inGraph: other)
        #expect(storage.instance(inGraph: other) as? Token === later)
        #expect(storage.instance(inGraph: graph) == nil)
    }

    @Test("GraphStorage keeps a value only until its graph completes and never remembers it")
    func graphStorageValue() {
        let storage = GraphStorage()
        let graph = GraphIdentifier()
        storage.setInstance(Stamp(serial: 3), inGraph: graph)
        #expect((storage.instance as? Stamp)?.serial == 3)
        #expect(storage.instance(inGraph: graph) == nil)
        storage.graphResolutionCompleted()
        #expect(storage.instance == nil)

        storage.instance = Stamp(serial: 4)
        #expect((storage.instance as? Stamp)?.serial == 4)
    }

    // MARK: WeakStorage

    @Test("A scope over WeakStorage shares an instance while someone holds it, and makes a new one after")
    func weak() {
        let mint = Mint()
        let scope = ObjectScope(storageFactory: WeakStorage.init, description: "while held")
        let container = Container()
        container.register(Token.self) { _ in mint.token() }.inObjectScope(scope)

        var held = container.resolve(Token.self)
        #expect(held?.serial == 1)
        #expect(container.resolve(Token.self) === held)
        held = nil
        #expect(container.resolve(Token.self)?.serial == 2)
        #expect(mint.made == 2)
    }

    @Test("A scope over WeakStorage cannot keep a value type: its factory runs on every resolve")
    func weakValue() {
        let mint = Mint()
        let container = Container()
        container.register(Stamp.self) { _ in mint.stamp() }
            .inObjectScope(ObjectScope(storageFactory: WeakStorage.init))

        #expect(container.resolve(Stamp.self)?.serial == 1)
        #expect(container.resolve(Stamp.self)?.serial == 2)
    }

    @Test("WeakStorage holds a class instance weakly and drops a value at once")
    func weakStorageDirectly() {
        let storage = WeakStorage()
        var token: Token? = Token(serial: 5)
        storage.instance = token
        #expect(storage.instance as? Token === token)
        #expect(storage.instance(inGraph: GraphIdentifier()) as? Token === token)
        token = nil
        #expect(storage.instance == nil)

        storage.instance = Stamp(serial: 6)
        #expect(storage.instance == nil)
    }

    // MARK: CompositeStorage and parent scopes

    @Test("CompositeStorage reads its components in order and writes to all of them")
    func compositeDirectly() {
        let first = RecordingStorage()
        let second = RecordingStorage()
        let composite = CompositeStorage([first, second])
        let graph = GraphIdentifier()
        #expect(composite.instance == nil)

        let only = Token(serial: 1)
        second.instance = only
        #expect(composite.instance as? Token === only)
        #expect(composite.instance(inGraph: graph) as? Token === only)
        #expect(first.reads == [graph])
        #expect(second.reads == [graph], "the component that answers is read once, as in Swinject")

        let both = Token(serial: 2)
        composite.setInstance(both, inGraph: graph)
        #expect(first.instance as? Token === both)
        #expect(second.instance as? Token === both)
        #expect(first.writes == [graph])
        #expect(second.writes == [graph])

        let preferred = Token(serial: 3)
        first.instance = preferred
        #expect(composite.instance as? Token === preferred)

        composite.instance = nil
        #expect(first.instance == nil)
        #expect(second.instance == nil)

        composite.graphResolutionCompleted()
        #expect(first.completions == 1)
        #expect(second.completions == 1)
    }

    @Test("A scope with a parent makes composite storage of its own storage and the parent's")
    func parentMakesComposite() {
        let parent = CountingScope()
        let scope = ObjectScope(storageFactory: WeakStorage.init, description: "child", parent: parent)
        #expect(scope.makeStorage() is CompositeStorage)
        #expect(parent.storagesMade == 1)
        #expect(ObjectScope(storageFactory: WeakStorage.init).makeStorage() is WeakStorage)
    }

    @Test("Weak storage with the graph scope as parent shares within a resolve even when no one holds the instance")
    func weakWithGraphParent() {
        final class Pair {
            let first: Token
            let second: Token
            init(first: Token, second: Token) {
                self.first = first
                self.second = second
            }
        }
        let mint = Mint()
        let scope = ObjectScope(
            storageFactory: WeakStorage.init,
            description: "weak in graph",
            parent: ObjectScope.graph
        )
        let container = Container()
        container.register(Token.self) { _ in mint.token() }.inObjectScope(scope)
        container.register(Pair.self) { r in Pair(first: r.resolve(Token.self)!, second: r.resolve(Token.self)!) }

        let pair = container.resolve(Pair.self)
        #expect(pair?.first === pair?.second)
        #expect(mint.made == 1)
        // Held by `pair`, the instance is shared with the next resolve too.
        #expect(container.resolve(Token.self) === pair?.first)
        #expect(mint.made == 1)
    }

    @Test("A scope whose parent is permanent keeps its instance through the parent's storage")
    func permanentParent() {
        let mint = Mint()
        let scope = ObjectScope(
            storageFactory: TransientStorage.init,
            description: "kept by parent",
            parent: ObjectScope(storageFactory: PermanentStorage.init)
        )
        let container = Container()
        container.register(Token.self) { _ in mint.token() }.inObjectScope(scope)

        #expect(container.resolve(Token.self)?.serial == 1)
        #expect(container.resolve(Token.self)?.serial == 1)
        container.resetObjectScope(scope)
        #expect(container.resolve(Token.self)?.serial == 2)
    }

    // MARK: Scopes of one's own

    @Test("A scope of one's own makes one storage per registration, on the first resolve")
    func ownScope() {
        let scope = CountingScope()
        let mint = Mint()
        let container = Container()
        container.register(Token.self) { _ in mint.token() }.inObjectScope(scope)
        container.register(Token.self, name: "other") { _ in mint.token() }.inObjectScope(scope)
        #expect(scope.storagesMade == 0)

        let first = container.resolve(Token.self)
        #expect(container.resolve(Token.self) === first)
        #expect(scope.storagesMade == 1)
        let other = container.resolve(Token.self, name: "other")
        #expect(other !== first)
        #expect(container.resolve(Token.self, name: "other") === other)
        #expect(scope.storagesMade == 2)
        #expect(mint.made == 2)
    }

    @Test("Resetting a scope of one's own empties its registrations and leaves other scopes alone")
    func resetOwnScope() {
        let scope = CountingScope()
        let mint = Mint()
        let container = Container()
        container.register(Token.self) { _ in mint.token() }.inObjectScope(scope)
        container.register(Token.self, name: "singleton") { _ in mint.token() }.inObjectScope(.container)
        let scoped = container.resolve(Token.self)
        let singleton = container.resolve(Token.self, name: "singleton")

        container.resetObjectScope(scope)
        let rescoped = container.resolve(Token.self)
        #expect(rescoped !== scoped)
        #expect(rescoped?.serial == 3)
        #expect(container.resolve(Token.self, name: "singleton") === singleton)
        // The registration keeps the storage it made: a reset empties it rather than replacing it.
        #expect(scope.storagesMade == 1)
    }

    @Test("Resetting a custom scope for one service type leaves its other registrations alone")
    func resetOneType() {
        let scope = ObjectScope(storageFactory: PermanentStorage.init, description: "session")
        let container = Container()
        container.register(Token.self) { _ in Token(serial: 1) }.inObjectScope(scope)
        container.register(Owner.self) { _ in Owner() }.inObjectScope(scope)
        let token = container.resolve(Token.self)
        let owner = container.resolve(Owner.self)

        container.resetObjectScope(scope, serviceType: Token.self)
        #expect(container.resolve(Token.self) !== token)
        #expect(container.resolve(Owner.self) === owner)
    }

    @Test("A storage that keeps nothing is given every instance and never returns one")
    func forgetful() {
        let storage = Forgetful()
        let mint = Mint()
        let container = Container()
        container.register(Token.self) { _ in mint.token() }
            .inObjectScope(ObjectScope(storageFactory: { storage }, description: "forgetful"))

        #expect(container.resolve(Token.self)?.serial == 1)
        #expect(container.resolve(Token.self)?.serial == 2)
        #expect(container.resolve(Token.self)?.serial == 3)
        #expect(storage.given == 3)
    }

    @Test("The container reads and writes a custom storage in the graph being resolved, and completes it once")
    func storageSeesTheGraph() throws {
        final class Pair {
            let first: Token
            let second: Token
            init(first: Token, second: Token) {
                self.first = first
                self.second = second
            }
        }
        let storage = RecordingStorage()
        let container = Container()
        var graph: GraphIdentifier?
        container.register(Token.self) { _ in Token(serial: 1) }
            .inObjectScope(ObjectScope(storageFactory: { storage }))
        container.register(Pair.self) { r in
            graph = r.resolve(GraphIdentifier.self)
            return Pair(first: r.resolve(Token.self)!, second: r.resolve(Token.self)!)
        }

        let pair = try #require(container.resolve(Pair.self))
        let identifier = try #require(graph)
        #expect(pair.first === pair.second)
        #expect(storage.reads == [identifier, identifier])
        #expect(storage.writes == [identifier])
        #expect(storage.completions == 1)
    }

    // MARK: Hierarchies

    @Test("A child container shares the instance its parent's custom-scoped registration keeps")
    func childSharesParentStorage() {
        let scope = ObjectScope(storageFactory: PermanentStorage.init, description: "session")
        let mint = Mint()
        let parent = Container()
        parent.register(Token.self) { _ in mint.token() }.inObjectScope(scope)
        let child = Container(parent: parent)

        let fromChild = child.resolve(Token.self)
        #expect(fromChild?.serial == 1)
        #expect(parent.resolve(Token.self) === fromChild)

        child.resetObjectScope(scope)
        #expect(parent.resolve(Token.self)?.serial == 2)
    }

    @Test("Resetting a custom scope on a parent leaves a child's own registrations in that scope alone")
    func parentResetSparesChild() {
        let scope = CountingScope()
        let parent = Container()
        parent.register(Token.self) { _ in Token(serial: 1) }.inObjectScope(scope)
        let child = Container(parent: parent)
        child.register(Token.self) { _ in Token(serial: 2) }.inObjectScope(scope)

        let inParent = parent.resolve(Token.self)
        let inChild = child.resolve(Token.self)
        #expect(inParent?.serial == 1)
        #expect(inChild?.serial == 2)

        parent.resetObjectScope(scope)
        #expect(parent.resolve(Token.self) !== inParent)
        #expect(child.resolve(Token.self) === inChild)
    }

    // MARK: The built-in scopes' storages

    @Test("The built-in scopes make the matching public storage for code that calls makeStorage")
    func builtInStorages() {
        #expect(ObjectScope.transient.makeStorage() is TransientStorage)
        #expect(ObjectScope.graph.makeStorage() is GraphStorage)
        #expect(ObjectScope.container.makeStorage() is PermanentStorage)
        #expect(ObjectScope.multiton.makeStorage() is PermanentStorage)
        #expect(ObjectScope.container.makeStorage() !== ObjectScope.container.makeStorage())
        // As in Swinject, the weak scope's storage is weak storage combined with the graph's: within one
        // graph it shares even an instance nobody else holds.
        let weak = ObjectScope.weak.makeStorage()
        #expect(weak is CompositeStorage)
        let graph = GraphIdentifier()
        weak.setInstance(Token(serial: 9), inGraph: graph)
        #expect((weak.instance(inGraph: graph) as? Token)?.serial == 9)
    }
}

// The universe of service types, shared by both subjects. Every instance records which registration
// made it (`madeBy`) and a serial number unique within one run, so that identity can be compared across
// libraries; `deps` keeps the dependencies the factory resolved (and keeps them alive).

/// What the runner reads from any resolved instance.
public protocol Made {
    var madeBy: Int { get }
    var serial: Int { get }
    var deps: [Any?] { get }
    /// A value type: compared by `madeBy` only, never by identity.
    var isValue: Bool { get }
}

public protocol PA: AnyObject {}
public protocol PB {}

public final class C1: PA, PB, Made {
    public let madeBy: Int, serial: Int, deps: [Any?]
    public var isValue: Bool { false }
    init(madeBy: Int, serial: Int, deps: [Any?]) { (self.madeBy, self.serial, self.deps) = (madeBy, serial, deps) }
}

public final class C2: PA, Made {
    public let madeBy: Int, serial: Int, deps: [Any?]
    public var isValue: Bool { false }
    init(madeBy: Int, serial: Int, deps: [Any?]) { (self.madeBy, self.serial, self.deps) = (madeBy, serial, deps) }
}

public struct V: PB, Made {
    public let madeBy: Int, serial: Int, deps: [Any?]
    public var isValue: Bool { true }
}

/// The service types a step can name, by index. A factory registered for type `i` resolves only types
/// with a smaller index, and a registration for type `i` forwards only to types with a larger one, so
/// no resolve can cycle (Swinject stops the process on a cycle).
public enum ServiceTypes {
    public static let all: [Any.Type] = [V.self, C1.self, C2.self, (any PA).self, (any PB).self]
    public static let names = ["V", "C1", "C2", "PA", "PB"]
    public static var count: Int { all.count }
}

/// The concrete type a factory makes.
public enum Kind: Int, Sendable, CaseIterable {
    case v, c1, c2

    /// The service type indices this kind conforms to.
    public var conforms: [Int] {
        switch self {
        case .v: [0, 4]
        case .c1: [1, 3, 4]
        case .c2: [2, 3]
        }
    }

    public var swiftName: String { ["V", "C1", "C2"][rawValue] }

    func make(madeBy: Int, serial: Int, deps: [Any?]) -> any Made {
        switch self {
        case .v: V(madeBy: madeBy, serial: serial, deps: deps)
        case .c1: C1(madeBy: madeBy, serial: serial, deps: deps)
        case .c2: C2(madeBy: madeBy, serial: serial, deps: deps)
        }
    }
}

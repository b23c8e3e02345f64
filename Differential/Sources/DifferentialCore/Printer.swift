// Prints a sequence as a Swift Testing test against Keystone.

/// The service types as a test declares them; print once above the tests.
public let swiftPreamble = """
    import Keystone
    import Testing

    protocol PA: AnyObject {}
    protocol PB {}
    final class C1: PA, PB {
        let madeBy: Int, deps: [Any?]
        init(_ madeBy: Int, _ deps: [Any?] = []) { (self.madeBy, self.deps) = (madeBy, deps) }
    }
    final class C2: PA {
        let madeBy: Int, deps: [Any?]
        init(_ madeBy: Int, _ deps: [Any?] = []) { (self.madeBy, self.deps) = (madeBy, deps) }
    }
    struct V: PB {
        let madeBy: Int, deps: [Any?]
        init(_ madeBy: Int, _ deps: [Any?] = []) { (self.madeBy, self.deps) = (madeBy, deps) }
    }
    """

func swiftCall(_ receiver: String, _ q: Request) -> String {
    var call = "\(receiver).resolve(\(ServiceTypes.names[q.service]).self"
    if let name = q.name { call += ", name: \"\(name)\"" }
    switch q.args.count {
    case 0: break
    case 1: call += ", argument: \(q.args[0].swiftLiteral)"
    default: call += ", arguments: " + q.args.map(\.swiftLiteral).joined(separator: ", ")
    }
    return call + ")"
}

func swiftType(_ t: ArgType) -> String {
    switch t {
    case .int: "Int"
    case .string: "String"
    case .bool: "Bool"
    case .pair: "(Int, String)"
    }
}

/// `divergence.steps` as the body of a Swift Testing test named `name`, with the oracle's and the
/// subject's outcomes at the diverging step as comments.
public func swiftTest(name: String, _ divergence: Divergence, oracle: String, subject: String) -> String {
    var lines = ["@Test func \(name)() {"]
    let body = divergence.steps
    if body.contains(where: { if case .register(let r) = $0 { r.initCompleted } else { false } }) {
        lines.append("    var log: [Int] = []  // initCompleted calls, by registration")
    }
    if body.contains(where: {
        if case .drop = $0 { true } else if case .resolve(_, _, true) = $0 { true } else { false }
    }) {
        lines.append("    var held: [Any] = []")
    }
    lines.append("    let c0 = Container()")
    var containers = 1
    var views: Set<Int> = []  // containers resolved through a synchronized view from here on
    for (i, step) in body.enumerated() {
        let last = i == divergence.step
        switch step {
        case .child(let p):
            lines.append("    let c\(containers) = Container(parent: c\(p))")
            containers += 1
        case .register(let r):
            let params = r.deps.isEmpty ? "_" : "r"
            let closureHead =
                r.args.isEmpty
                ? "\(params) in"
                : "(\(params): any Resolver, " + r.args.map { "_: \(swiftType($0))" }.joined(separator: ", ") + ") in"
            let deps = r.deps.isEmpty ? "" : ", [" + r.deps.map { swiftCall("r", $0) }.joined(separator: ", ") + "]"
            var text = "    c\(r.container).register(\(ServiceTypes.names[r.service]).self"
            if let name = r.name { text += ", name: \"\(name)\"" }
            text += ") { \(closureHead) \(r.kind.swiftName)(\(r.id)\(deps)) }"
            text += "\n        .inObjectScope(\(r.scope.swiftName))"
            if r.initCompleted { text += "\n        .initCompleted { _, _ in log.append(\(r.id)) }" }
            for f in r.forwards {
                text += "\n        .implements(\(ServiceTypes.names[f.service]).self"
                text += (f.name.map { ", name: \"\($0)\"" } ?? "") + ")"
            }
            lines.append(text)
        case .resolve(let c, let q, let hold):
            let call = swiftCall(views.contains(c) ? "v\(c)" : "c\(c)", q)
            if last {
                lines.append("    let diverging = \(call)")
                lines.append("    // Swinject: \(oracle)")
                lines.append("    // Keystone: \(subject)")
                lines.append("    _ = diverging")
            } else if hold {
                lines.append("    if let x = \(call) { held.append(x) }")
            } else {
                lines.append("    _ = \(call)")
            }
        case .drop(let index):
            lines.append("    if !held.isEmpty { held.remove(at: \(index) % held.count) }")
        case .removeAll(let c):
            lines.append("    c\(c).removeAll()")
        case .reset(let c, let scope, let service):
            let type = service.map { ", serviceType: \(ServiceTypes.names[$0]).self" } ?? ""
            lines.append("    c\(c).resetObjectScope(\(scope.swiftName)\(type))")
        case .synchronize(let c):
            lines.append(views.insert(c).inserted ? "    let v\(c) = c\(c).synchronize()" : "    _ = c\(c).synchronize()")
        }
        if last, !(step.isResolve) {
            lines.append("    // ↑ diverges here. Swinject: \(oracle)")
            lines.append("    //                  Keystone: \(subject)")
        }
    }
    lines.append("}")
    return lines.joined(separator: "\n")
}

extension Step {
    var isResolve: Bool { if case .resolve = self { true } else { false } }
}

// Runs a sequence against one engine and describes the observable outcome of every step.

/// What the factories and `initCompleted` actions of one run record.
final class Recorder {
    var serial = 0
    var factoryCalls = 0
    var initLog: [Int] = []
}

/// Runs `steps` (normalized) against `engine`, returning one outcome description per step. Two
/// libraries behave alike on a sequence exactly when their descriptions are equal step by step.
///
/// A resolve's description is the instance tree: for each instance the registration that made it
/// (`C1@r3`), for a class instance its identity as `#k`, k numbering instances in the order the run
/// first observed them (so "same instance as before" compares across libraries), then its
/// dependencies in brackets; then the number of factory calls and the `initCompleted` order.
public func execute<E: Engine>(_ engine: E, _ steps: [Step]) -> [String] {
    let recorder = Recorder()
    var containers = [engine.makeContainer(parent: nil)]
    var held: [Any] = []
    var labels: [Int: Int] = [:]  // serial -> order of first observation

    func describe(_ value: Any?) -> String {
        guard let value else { return "nil" }
        guard let made = value as? any Made else { return "?\(type(of: value))" }
        var text = "\(type(of: made))@r\(made.madeBy)"
        if !made.isValue {
            let label = labels[made.serial] ?? labels.count
            labels[made.serial] = label
            text += "#\(label)"
        }
        if !made.deps.isEmpty { text += "[" + made.deps.map(describe).joined(separator: ", ") + "]" }
        return text
    }

    var outcomes: [String] = []
    outcomes.reserveCapacity(steps.count)
    for step in steps {
        let calls = recorder.factoryCalls, logged = recorder.initLog.count
        var text = ""
        switch step {
        case .child(let parent):
            containers.append(engine.makeContainer(parent: containers[parent]))
        case .register(let r):
            engine.register(
                in: containers[r.container],
                service: ServiceTypes.all[r.service],
                name: r.name,
                args: r.args,
                scope: r.scope,
                initCompleted: r.initCompleted ? { recorder.initLog.append(r.id) } : nil,
                forwards: r.forwards.map { (ServiceTypes.all[$0.service], $0.name) },
                factory: { resolve in
                    recorder.factoryCalls += 1
                    let deps = r.deps.map(resolve)
                    recorder.serial += 1
                    return r.kind.make(madeBy: r.id, serial: recorder.serial, deps: deps)
                }
            )
        case .resolve(let c, let q, let hold):
            let value = engine.resolve(
                in: containers[c],
                service: ServiceTypes.all[q.service],
                name: q.name,
                args: q.args
            )
            text = describe(value)
            if hold, let value { held.append(value) }
        case .drop(let index):
            if !held.isEmpty { held.remove(at: index % held.count) }
        case .removeAll(let c):
            engine.removeAll(in: containers[c])
        case .reset(let c, let scope, let service):
            engine.resetObjectScope(in: containers[c], scope, serviceType: service.map { ServiceTypes.all[$0] })
        case .synchronize(let c):
            engine.synchronize(containers[c])
        }
        let initOrder = recorder.initLog[logged...].map { "r\($0)" }.joined(separator: ",")
        outcomes.append("\(text) calls=\(recorder.factoryCalls - calls) init=[\(initOrder)]")
    }
    return outcomes
}

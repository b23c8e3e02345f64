/// What `verify()` and `dependencyGraph()` collect while they explore a hierarchy: the problems met
/// (each once) and the requests made (as graph edges).
@usableFromInline
final class Inspection {
    private(set) var problems: [DIError] = []
    private var problemIndex: [ProblemIdentity: Int] = [:]
    private(set) var nodes: [ServiceKey: DependencyGraph.Node] = [:]
    private(set) var edges: [DependencyGraph.Edge] = []
    private var edgeSet: Set<DependencyGraph.Edge> = []
    /// Failures that are not problems: a synchronous resolve of an async or main-actor `.container`
    /// registration without arguments, which `warmUp()` creates first. Noted where they are thrown, so
    /// that the same error reaching a root resolve is not reported there either.
    private var excused: [DIError] = []

    /// Records that `failure` is not a problem, wherever it is reported next.
    func excuse(_ failure: DIError) {
        if !excused.contains(failure) {
            excused.append(failure)
        }
    }

    /// What makes two reports the same problem, so that a problem met from several roots is listed once.
    private enum ProblemIdentity: Hashable {
        case missing(ServiceKey, neededBy: ServiceKey?)
        case cycle([ServiceKey])
        case failed(ServiceKey, String)
        case other(String)
    }

    /// Records a problem. A missing dependency is one problem per requester, reported with the longest
    /// path that led to it; a cycle is one problem whichever of its keys it was entered from.
    func note(_ problem: DIError) {
        guard !excused.contains(problem) else { return }
        let identity: ProblemIdentity
        switch problem {
        case .notRegistered(let key, let path, _):
            identity = .missing(key, neededBy: path.last)
        case .circularDependency(let path):
            identity = .cycle(Self.canonicalCycle(path))
        case .factoryFailed(let key, _, let underlying):
            identity = .failed(key, String(describing: underlying))
        default:
            identity = .other(problem.description)
        }
        if let index = problemIndex[identity] {
            if problem.pathLength > problems[index].pathLength {
                problems[index] = problem
            }
            return
        }
        problemIndex[identity] = problems.count
        problems.append(problem)
    }

    /// Records that `from` asked for `to` (a root request when `from` is `nil`); `scope` is `to`'s scope,
    /// or `nil` when `to` is not registered.
    func noteEdge(from: ServiceKey?, to: ServiceKey, scope: String?) {
        if nodes[to]?.scope == nil {
            nodes[to] = DependencyGraph.Node(key: to, scope: scope)
        }
        if let from {
            let edge = DependencyGraph.Edge(from: from, to: to)
            if edgeSet.insert(edge).inserted {
                edges.append(edge)
            }
        }
    }

    /// A cycle `A -> B -> C -> A` as its distinct keys, rotated to start at the smallest description.
    private static func canonicalCycle(_ path: [ServiceKey]) -> [ServiceKey] {
        let ring = path.count > 1 && path.first == path.last ? Array(path.dropLast()) : path
        guard let start = ring.indices.min(by: { ring[$0].description < ring[$1].description }) else {
            return ring
        }
        return Array(ring[start...] + ring[..<start])
    }
}

extension DIError {
    /// How many keys the error's path has, for keeping the most informative of two reports.
    fileprivate var pathLength: Int {
        switch self {
        case .notRegistered(_, let path, _), .factoryFailed(_, let path, _), .circularDependency(let path),
            .depthLimitExceeded(let path, _), .asyncResolutionRequired(_, let path), .mainActorRequired(_, let path):
            path.count
        default:
            0
        }
    }
}

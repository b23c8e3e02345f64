import Foundation

/// The dependencies observed while resolving: which registration asked for which, with the scope of
/// each, ready to draw as a Mermaid or Graphviz diagram.
///
/// ```swift
/// let graph = container.dependencyGraph()
/// print(graph.mermaid)
/// // graph TD
/// //     n0["Animal<br/>container"]
/// //     n1["Person<br/>graph"]
/// //     n1 --> n0
/// ```
///
/// A dependency that is asked for but not registered is drawn dashed and labelled `missing`.
public struct DependencyGraph: Equatable, Sendable {
    /// A registration (or a missing one) in the graph.
    public struct Node: Hashable, Sendable {
        /// The key asked for.
        public let key: ServiceKey
        /// The name of the scope it is registered in, or `nil` when nothing is registered under `key`.
        public let scope: String?

        /// Creates a node.
        public init(key: ServiceKey, scope: String?) {
            self.key = key
            self.scope = scope
        }
    }

    /// One registration's factory (or `initCompleted` action) asking for another.
    public struct Edge: Hashable, Sendable {
        /// The key being resolved when the request was made.
        public let from: ServiceKey
        /// The key asked for.
        public let to: ServiceKey

        /// Creates an edge.
        public init(from: ServiceKey, to: ServiceKey) {
            self.from = from
            self.to = to
        }
    }

    /// Every key resolved or asked for, sorted by description.
    public let nodes: [Node]
    /// Every request observed, in the order first seen.
    public let edges: [Edge]

    /// Creates a graph.
    public init(nodes: [Node], edges: [Edge]) {
        var all = nodes
        var known = Set(nodes.map(\.key))
        for key in edges.flatMap({ [$0.from, $0.to] }) where known.insert(key).inserted {
            all.append(Node(key: key, scope: nil))
        }
        self.nodes = all.sorted { $0.key.description < $1.key.description }
        self.edges = edges
    }

    /// The graph as a Mermaid flowchart (`graph TD`), one node per key and one arrow per request.
    public var mermaid: String {
        let ids = identifiers
        var lines = ["graph TD"]
        for (index, node) in nodes.enumerated() {
            let label = Self.escapeMermaid(node.key.description) + "<br/>" + (node.scope ?? "missing")
            lines.append("    n\(index)[\"\(label)\"]" + (node.scope == nil ? ":::missing" : ""))
        }
        for edge in edges {
            lines.append("    \(ids[edge.from]!) --> \(ids[edge.to]!)")
        }
        if nodes.contains(where: { $0.scope == nil }) {
            lines.append("    classDef missing stroke-dasharray: 5 5")
        }
        return lines.joined(separator: "\n")
    }

    /// The graph as Graphviz DOT text (`digraph`), one node per key and one arrow per request.
    public var dot: String {
        let ids = identifiers
        var lines = ["digraph Dependencies {", "    node [shape=box];"]
        for (index, node) in nodes.enumerated() {
            let label = Self.escapeDOT(node.key.description) + "\\n" + (node.scope ?? "missing")
            lines.append("    n\(index) [label=\"\(label)\"" + (node.scope == nil ? ", style=dashed" : "") + "];")
        }
        for edge in edges {
            lines.append("    \(ids[edge.from]!) -> \(ids[edge.to]!);")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    private var identifiers: [ServiceKey: String] {
        var ids: [ServiceKey: String] = [:]
        for (index, node) in nodes.enumerated() {
            ids[node.key] = "n\(index)"
        }
        return ids
    }

    private static func escapeMermaid(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "#quot;")
    }

    private static func escapeDOT(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}

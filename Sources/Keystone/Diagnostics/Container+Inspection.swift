import Foundation

extension Container {
    /// The number of registrations in this container, not counting its ancestors'. A type forwarded
    /// with `implements` counts as a registration of its own.
    ///
    /// ```swift
    /// #expect(container.registeredCount() == 3)
    /// ```
    public func registeredCount() -> Int {
        withHierarchyLock { table.count }
    }

    /// The keys registered in this container, not counting its ancestors', as text, sorted:
    /// `["Animal named \"cat\"", "Database", "Horse with arguments (String)"]`.
    public func allRegisteredTypes() -> [String] {
        withHierarchyLock {
            var keys: [String] = []
            table.forEach { keys.append($0.key.description) }
            return keys.sorted()
        }
    }

    /// A report of every registration of this container: its key, scope, when it was registered,
    /// how often it was resolved, and whether an instance is held now.
    ///
    /// ```text
    /// Container with 2 registrations (parent has 1):
    /// • Animal named "cat" [container] registered 2026-11-21T10:30:00Z, resolved 15 times, instance held
    /// • Database [graph] registered 2026-11-21T10:30:01Z, resolved 8 times
    /// ```
    ///
    /// Resolution counts include resolves that returned a cached instance; counting is a single
    /// increment on the resolve path.
    public func statusReport() -> String {
        withHierarchyLock {
            struct Line {
                let key: String
                let text: String
            }
            var lines: [Line] = []
            table.forEach { slot in
                let key = slot.key
                let entry = slot.entry
                var text = "• \(key) [\(entry.objectScope)]"
                if slot.isForwarded {
                    text += " forwarded to \(entry.key)"
                }
                text += " registered \(entry.registeredAt.formatted(.iso8601))"
                let count = entry.resolutionCount
                text += ", resolved \(count) \(count == 1 ? "time" : "times")"
                if entry.holdsInstance {
                    text += ", instance held"
                }
                lines.append(Line(key: key.description, text: text))
            }
            let count = table.count
            var header = "Container with \(count) \(count == 1 ? "registration" : "registrations")"
            if let parent {
                header += " (parent has \(parent.table.count))"
            }
            let body = lines.sorted { $0.key < $1.key }.map(\.text)
            return ([header + ":"] + body).joined(separator: "\n")
        }
    }

    /// Prints ``statusReport()``.
    public func printStatus() {
        print(statusReport())
    }
}

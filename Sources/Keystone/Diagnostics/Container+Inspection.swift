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

    /// Whether resolves are counted for ``statusReport()``, in every container of this hierarchy (this
    /// container, its ancestors and their descendants). Off by default: a counted resolve leaves the
    /// inlined resolve path for a slower one that counts it. ``DIActor`` turns it on for the container
    /// it fronts, whose status report the actor's users read.
    ///
    /// ```swift
    /// container.countsResolutions = true
    /// _ = container.resolve(Animal.self)
    /// container.printStatus()  // • Animal [graph] registered …, resolved 1 time
    /// ```
    ///
    /// Counts kept so far stay when counting is turned off, and grow again when it is turned back on.
    public var countsResolutions: Bool {
        get { withHierarchyLock { hierarchy.countsResolutions } }
        set { withHierarchyLock { hierarchy.countsResolutions = newValue } }
    }

    /// A report of every registration of this container: its key, scope, when it was registered, how
    /// often it was resolved if resolves are counted, whether it is shared (one instance for every
    /// resolve: `.container`), and whether an instance is held now.
    ///
    /// Counting is opt-in: a plain `Container` counts no resolves until you set ``countsResolutions``
    /// (the container a ``DIActor`` fronts counts them from the start). Until then the header says that
    /// resolves are not counted, and each line leaves the count out:
    ///
    /// ```text
    /// Container with 2 registrations, resolves not counted (see countsResolutions):
    /// • Animal named "cat" [container] registered 2026-11-21T10:30:00Z, shared, instance held
    /// • Database [graph] registered 2026-11-21T10:30:01Z
    /// ```
    ///
    /// Turn counting on before the resolves you want counted, cached resolves included:
    ///
    /// ```swift
    /// container.countsResolutions = true
    /// // ... the app resolves ...
    /// print(container.statusReport())
    /// ```
    ///
    /// ```text
    /// Container with 2 registrations (parent has 1):
    /// • Animal named "cat" [container] registered 2026-11-21T10:30:00Z, resolved 15 times, shared, instance held
    /// • Database [graph] registered 2026-11-21T10:30:01Z, resolved 8 times
    /// ```
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
                if hierarchy.countsResolutions {
                    let count = entry.resolutionCount
                    text += ", resolved \(count) \(count == 1 ? "time" : "times")"
                }
                if entry.keepsOneInstance {
                    text += ", shared"
                }
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
            if !hierarchy.countsResolutions {
                header += ", resolves not counted (see countsResolutions)"
            }
            let body = lines.sorted { $0.key < $1.key }.map(\.text)
            return ([header + ":"] + body).joined(separator: "\n")
        }
    }

    /// Prints ``statusReport()``; resolves are counted in it only while ``countsResolutions`` is on.
    public func printStatus() {
        print(statusReport())
    }
}

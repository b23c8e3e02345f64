/// A value handed from one task or actor to another that waits for it, once.
///
/// Unchecked `Sendable`: instances, factories' arguments and resolvers cross isolation domains under the
/// container's own contract, as they do through a ``SynchronizedResolver`` (the container does not make
/// instances thread-safe; a shared instance used from several tasks must be `Sendable` itself). The
/// engine hands each value over once: it is written before the receiver resumes and not used by the
/// sender afterwards. A remembered graph (`GraphRecord`) also keeps its instances in handoffs, under its
/// lock, for whoever resolves in the graph, from any thread: the same contract, kept rather than handed
/// once. See ARCHITECTURE.md, "Exclusivity and casts".
@usableFromInline
struct Handoff<Value>: @unchecked Sendable {
    @usableFromInline let value: Value

    @usableFromInline
    init(_ value: Value) {
        self.value = value
    }
}

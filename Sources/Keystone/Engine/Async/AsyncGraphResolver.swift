/// The resolver an async factory and the `initCompleted` actions of its instance are handed (and, inside
/// an asynchronous resolution, the synchronous factories it runs): it carries the resolution, so that its
/// resolves, synchronous or not, join the graph and the path of the call in flight. Once that call has
/// ended, a resolver kept from it resolves as its container does, each resolve a call of its own.
@usableFromInline
final class AsyncGraphResolver: Resolver, Sendable {
    let container: Handoff<Container>
    let context: AsyncResolution

    init(container: Container, context: AsyncResolution) {
        self.container = Handoff(container)
        self.context = context
    }

    @usableFromInline
    func resolveService<Service, Arguments>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: Arguments,
        argumentCount: Int
    ) throws(DIError) -> Service {
        let container = container.value
        let key = ServiceKey.of(Service.self, name: name, Arguments.self, argumentCount)
        let context = context
        return try container.hierarchy.withLock { () throws(DIError) -> Service in
            if context.isLive {
                return try container.resolveInGraph(key, arguments: arguments, in: context)
            }
            let resolver: any Resolver = context.isConfined ? container : SynchronizedResolver(container)
            return try container.resolve(key, arguments: arguments, resolver: resolver)
        }
    }

    /// Resolves `key` asynchronously in the resolution this resolver carries, or, once its call has
    /// ended, as a top-level call of its own.
    @usableFromInline
    nonisolated(nonsending) func resolveAsync<Service, Arguments>(_ key: ServiceKey, arguments: Arguments)
        async throws(DIError) -> Service
    {
        if context.isLive {
            return try await container.value.resolveAsync(key, arguments: arguments, in: context)
        }
        return try await container.value.resolveAsTopLevel(key, arguments: arguments, confined: context.isConfined)
    }
}

extension Container {
    /// Whether a resolve fails when an instance a container keeps would capture a registration of a
    /// container below it in the hierarchy: a captive dependency. Shared by the whole hierarchy; off by
    /// default, as resolves behave in Swinject.
    ///
    /// The trap it catches: a parent's `.container` service first resolved through a child, whose factory
    /// picks up the child's override of a dependency and keeps it after the child is gone.
    ///
    /// ```swift
    /// let app = Container()
    /// app.register(Session.self) { _ in GuestSession() }
    /// app.register(Cart.self) { r in Cart(session: r.resolve(Session.self)!) }.inObjectScope(.container)
    /// let request = Container(parent: app)
    /// request.register(Session.self) { _ in UserSession(id: 42) }
    ///
    /// app.validatesScopes = true
    /// try request.resolveThrows(Cart.self)  // throws DIError.captiveDependency(key: Cart, captured: Session, ...)
    /// ```
    ///
    /// With validation on, such a resolve throws ``DIError/captiveDependency(key:captured:path:)`` and
    /// keeps nothing it created: the factory still gets what it asked for, so that code written with `!`
    /// does not stop, but the instance it makes is not kept and the top-level resolve fails when it ends.
    /// ``verify(samples:)`` reports the same problems whether validation is on or not.
    /// While it is on, resolves take the container's checked path, which costs more than the plain one.
    public var validatesScopes: Bool {
        get { hierarchy.withLock { hierarchy.validatesScopes } }
        set { hierarchy.withLock { hierarchy.validatesScopes = newValue } }
    }

    /// Checks that resolving `entry`, found under `key`, now captures nothing: no creation in flight whose
    /// instance a container keeps (`.container`, `.multiton`) belongs to a container above `entry`'s.
    /// Inspection notes the captive dependency; validation records it as the failure of the top-level
    /// call, which taints every frame in flight (nothing is kept) and fails the call when it ends. Either
    /// way this resolve goes on. Called through ``observe(_:as:)``, by the typed path and by the erased
    /// one while resolves are observed (``serveObserved(_:handing:)``); does something only while
    /// inspecting or validating.
    func checkScope(of entry: any AnyServiceEntry, as key: ServiceKey) {
        // A registration of the root container (depth 0) has no container above it to be captive in.
        guard hierarchy.isInspecting || hierarchy.validatesScopes, let depth = entry.owner?.depth, depth > 0 else {
            return
        }
        let state = hierarchy.state
        guard let holder = state.innermostHolder(above: depth) else { return }
        // The path in flight: the asynchronous resolution's creations, then the frames.
        let path = state.path
        let captive = DIError.captiveDependency(key: path[holder], captured: key, path: path[holder...] + [key])
        if hierarchy.isInspecting {
            state.inspection?.note(captive)
            return
        }
        _ = state.recordFailure(captive)
    }
}

extension ResolutionState {
    /// The innermost creation in flight (an index in ``path``) of an instance that a container keeps
    /// (`.container`, `.multiton`; not a front's unique instance), registered in a container shallower
    /// than `depth`, if any: among the frames, then the asynchronous resolution's creations.
    func innermostHolder(above depth: Int) -> Int? {
        let frame = frames.lastIndex { frame in
            !frame.isUnique && frame.entry.keepsOneInstanceWithoutArguments
                && (frame.entry.owner?.depth ?? depth) < depth
        }
        if let frame {
            return outer.count + frame
        }
        return call.outerHolders.lastIndex { ($0 ?? depth) < depth }
    }
}

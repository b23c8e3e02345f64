/// The two rules that stop a resolve that cannot end, written once for the synchronous engine's frames
/// and the asynchronous path's steps.
///
/// **Cycles.** Creating a registration again while a creation of it is in flight on the same path is a
/// cycle when it asks for equal arguments: `==` where they are `Equatable`, element by element for
/// several, by identity otherwise (``ArgumentComparison``). Other arguments are recursion through the
/// registration (a tree built from runtime arguments), bounded by the depth rule. On the synchronous
/// path, even equal arguments end if some entry created in between is found instead of created anew on
/// the way back: one whose instance is stored (its `initCompleted` is what led here) and reused in the
/// graph. A `.unique` instance already made is not in flight: its `initCompleted` may ask for the shared
/// instance of the same registration.
///
/// **Depth.** Nesting stops at ``ResolutionState/maximumDepth`` levels, counting the asynchronous
/// resolution a synchronous call serves (``ResolutionState/CallState/outer``), or when the thread's stack is
/// nearly used up (``StackSpace``).
protocol CreationInFlight {
    /// Whether this is a creation of `registration` (an entry, or an async factory's identity) with
    /// arguments equal to `arguments`.
    func isCreation<Arguments>(of registration: ObjectIdentifier, with arguments: Arguments) -> Bool
}

extension RandomAccessCollection where Element: CreationInFlight {
    /// The innermost creation of `registration` with arguments equal to `arguments` on this path, if any:
    /// where a cycle would start.
    func lastCreation<Arguments>(of registration: ObjectIdentifier, with arguments: Arguments) -> Index? {
        lastIndex { $0.isCreation(of: registration, with: arguments) }
    }
}

extension ResolutionState.Frame: CreationInFlight {
    func isCreation<Arguments>(of registration: ObjectIdentifier, with arguments: Arguments) -> Bool {
        guard ObjectIdentifier(entry) == registration, !(isUnique && produced) else { return false }
        // The same entry, so the same argument types.
        return ArgumentComparison.equal(self.arguments.assumingMemoryBound(to: Arguments.self).pointee, arguments)
    }
}

extension ResolutionState {
    /// Throws when a resolution at `depth` may not nest further: past ``maximumDepth``, or with too little
    /// stack left once `stackDepth` frames of synchronous resolves are nested on this thread's stack
    /// (checked every few levels from ``stackCheckDepth``). An async creation's depth is not stack: each
    /// of its factories runs after a suspension, on whatever stack its task resumes on.
    func checkDepth(_ depth: Int, key: ServiceKey, stackDepth: Int) throws(DIError) {
        let tooDeep = depth >= Self.maximumDepth
        let checksStack = stackDepth >= Self.stackCheckDepth && stackDepth % StackSpace.checkInterval == 0
        if tooDeep || checksStack && StackSpace.isLow() {
            throw recordFailure(.depthLimitExceeded(path: path + [key], limit: depth))
        }
    }

    /// Called before creating an instance of `entry` while a frame of it is already on the stack:
    /// throws the cycle if creating it cannot end (the rule: ``CreationInFlight``), or marks the earlier
    /// frame as reentered if an instance stored in between ends the loop.
    @usableFromInline
    func checkReentry<Arguments>(
        of entry: any AnyServiceEntry,
        as key: ServiceKey,
        arguments: UnsafePointer<Arguments>
    ) throws(DIError) {
        guard let index = frames.lastCreation(of: ObjectIdentifier(entry), with: arguments.pointee) else { return }
        let broken = frames[(index + 1)...].contains {
            $0.produced && !$0.isUnique && $0.entry.reusesInstanceInGraph
        }
        guard broken else {
            throw recordFailure(.circularDependency(path: frames[index...].map(\.key) + [key]))
        }
        frames[index].reentered = true
    }
}

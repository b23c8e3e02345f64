/// The frames of the creations in flight in one hierarchy, innermost last (``ResolutionState/frames``): a
/// stack in a buffer it owns, pushed and popped once per instance created.
///
/// An `Array` checked its buffer's uniqueness on every push and popped through a generic function; this
/// stack does neither (`transient` row: 1,051 instructions against 1,138; `graph` 1,092 against
/// 1,178; `chain` 18,233 against 19,103). It is a class, referenced only
/// by its resolution state, so that no copy of it shares its buffer: the collection views the engine takes
/// of it (`dropLast()`, `frames[index...]`, `lastIndex`) are read at once, while nothing is pushed.
@usableFromInline
final class FrameStack: RandomAccessCollection, MutableCollection {
    @usableFromInline typealias Frame = ResolutionState.Frame

    // Unchecked: the stack is changed only by its resolution state, under the hierarchy's lock or on the
    // one thread an unsynchronized container is confined to, one statement at a time (ARCHITECTURE.md,
    // "Exclusivity and casts").
    /// The first `count` of `capacity` frames are initialized.
    @exclusivity(unchecked) @usableFromInline var base: UnsafeMutablePointer<Frame>
    @exclusivity(unchecked) @usableFromInline var count: Int = 0
    @exclusivity(unchecked) @usableFromInline var capacity: Int

    init() {
        capacity = 16
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    @inlinable var startIndex: Int { 0 }
    @inlinable var endIndex: Int { count }
    @inlinable var isEmpty: Bool { count == 0 }

    @inlinable
    subscript(position: Int) -> Frame {
        get {
            precondition(position >= 0 && position < count, "frame index out of range")
            return base[position]
        }
        _modify {
            precondition(position >= 0 && position < count, "frame index out of range")
            yield &base[position]
        }
    }

    /// Pushes `frame`.
    @inlinable
    func append(_ frame: Frame) {
        if count == capacity {
            grow()
        }
        (base + count).initialize(to: frame)
        count &+= 1
    }

    /// Pops the innermost frame.
    @inlinable
    func removeLast() {
        precondition(count > 0, "no frame to pop")
        count &-= 1
        (base + count).deinitialize(count: 1)
    }

    /// Doubles the capacity, moving the frames to a new buffer.
    @usableFromInline
    func grow() {
        let grown = UnsafeMutablePointer<Frame>.allocate(capacity: capacity * 2)
        grown.moveInitialize(from: base, count: count)
        base.deallocate()
        base = grown
        capacity *= 2
    }
}

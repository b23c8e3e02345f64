/// How the engine tells whether two resolutions of one registration pass the same runtime arguments,
/// which decides between a cycle (the same arguments again) and recursion (a tree built from runtime
/// arguments). It runs only when a registration is resolved again while its factory runs.
///
/// - `Void` (no arguments) is always the same.
/// - An `Equatable` value is compared with `==`.
/// - A tuple (several arguments) is the same when every element is.
/// - Anything else is the same when it is the same value bit for bit: the same object for a class
///   instance, the same storage for a value whose equality is unknown. Values that are equal in some
///   other sense count as different, and a recursion that never ends on them stops at the engine's
///   depth limit instead.
enum ArgumentComparison {
    static func equal<Arguments>(_ first: Arguments, _ second: Arguments) -> Bool {
        if MemoryLayout<Arguments>.size == 0 {
            return true
        }
        return same(first, second)
    }

    private static func same(_ first: Any, _ second: Any) -> Bool {
        if let first = first as? any Equatable {
            return isEqual(first, second)
        }
        let mirror = Mirror(reflecting: first)
        if mirror.displayStyle == .tuple {
            let other = Mirror(reflecting: second)
            return mirror.children.count == other.children.count
                && zip(mirror.children, other.children).allSatisfy { same($0.value, $1.value) }
        }
        return sameBits(first, second)
    }

    private static func isEqual<Value: Equatable>(_ first: Value, _ second: Any) -> Bool {
        (second as? Value) == first
    }

    private static func sameBits<Value>(_ first: Value, _ second: Any) -> Bool {
        guard let second = second as? Value else { return false }
        return withUnsafeBytes(of: first) { first in
            withUnsafeBytes(of: second) { second in
                first.elementsEqual(second)
            }
        }
    }
}

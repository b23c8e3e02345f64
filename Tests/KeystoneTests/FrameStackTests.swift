import Testing

@testable import Keystone

// The frames of the creations in flight live in a `FrameStack`, a buffer that grows by doubling. These
// tests cross every growth step (16, 32, 64, 128 frames) and check what the frames carry there: the
// paths of errors, recursion told apart from cycles, flags set on a frame deep in the stack.

private final class FSNode {
    let depth: Int
    let next: FSNode?
    init(depth: Int, next: FSNode?) {
        self.depth = depth
        self.next = next
    }
}

private struct FSMissing {}

@Suite("FrameStack: the frames of creations in flight", .tags(.engine))
struct FrameStackTests {
    @Test("Pushed frames read back in order across growth, and popping releases their keys")
    func pushAndPop() {
        let stack = FrameStack()
        let container = Container()
        let entry = container.register(Int.self) { _ in 0 }
        var arguments = [Int](repeating: 0, count: 300)
        arguments.withUnsafeMutableBufferPointer { buffer in
            for index in 0..<300 {
                buffer[index] = index
                let key = ServiceKey(serviceType: Int.self, name: "frame \(index) of a long name")
                stack.append(
                    ResolutionState.Frame(
                        entry: entry,
                        key: key,
                        arguments: UnsafeRawPointer(buffer.baseAddress! + index),
                        isUnique: index % 2 == 0
                    )
                )
                #expect(stack.count == index + 1)
            }
            for index in [0, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256, 299] {
                #expect(stack[index].key.name == "frame \(index) of a long name")
                #expect(stack[index].isUnique == (index % 2 == 0))
                #expect(stack[index].arguments.load(as: Int.self) == index)
            }
            stack[200].tainted = true
            #expect(stack.filter(\.tainted).map(\.key.name) == ["frame 200 of a long name"])
            #expect(stack.dropLast().count == 299)
            #expect(stack.lastIndex { $0.key.name?.hasPrefix("frame 17 ") == true } == 17)
            while !stack.isEmpty {
                stack.removeLast()
            }
        }
        #expect(stack.count == 0)
        // Frames left on the stack are destroyed with it (ASan and LSan see a leak or a double free).
        let abandoned = FrameStack()
        for index in 0..<40 {
            abandoned.append(
                ResolutionState.Frame(
                    entry: entry,
                    key: ServiceKey(serviceType: Int.self, name: "left \(index) with a long name"),
                    arguments: UnsafeRawPointer(bitPattern: 8)!,
                    isUnique: false
                )
            )
        }
        #expect(abandoned.count == 40)
    }

    // These deep resolves run under Address Sanitizer too: with its fake stack for use-after-return
    // detection, the stack check once reported a low stack at depth 16 (`StackSpace`).
    @Test("A miss 150 levels deep names the whole path, in order")
    func deepMissPath() throws {
        let container = Container()
        for depth in 0..<150 {
            container.register(FSNode.self, name: "\(depth)") { r in
                if depth == 149 {
                    _ = try r.resolveThrows(FSMissing.self)
                }
                return FSNode(depth: depth, next: try r.resolveThrows(FSNode.self, name: "\(depth + 1)"))
            }
        }
        container.register(FSNode.self, name: "150") { _ in FSNode(depth: 150, next: nil) }
        let error = #expect(throws: DIError.self) { try container.resolveThrows(FSNode.self, name: "0") }
        guard case .notRegistered(let key, let path, _)? = error else {
            Issue.record("expected notRegistered, got \(String(describing: error))")
            return
        }
        #expect(ObjectIdentifier(key.serviceType) == ObjectIdentifier(FSMissing.self))
        #expect(path.map(\.name) == (0..<150).map { "\($0)" })
        // Nothing half-made is kept, and the stack is empty again: the next resolve of the chain's tail works.
        #expect(try container.resolveThrows(FSNode.self, name: "150").depth == 150)
    }

    @Test("A cycle closed 100 levels deep names its loop; recursion with new arguments does not count as one")
    func deepCycleAndRecursion() throws {
        let container = Container()
        for depth in 0..<100 {
            container.register(FSNode.self, name: "\(depth)") { r in
                FSNode(depth: depth, next: try r.resolveThrows(FSNode.self, name: "\(depth == 99 ? 40 : depth + 1)"))
            }
        }
        let error = #expect(throws: DIError.self) { try container.resolveThrows(FSNode.self, name: "0") }
        guard case .circularDependency(let path)? = error else {
            Issue.record("expected circularDependency, got \(String(describing: error))")
            return
        }
        #expect(path.map(\.name) == (40..<100).map { "\($0)" } + ["40"])

        // A tree built from arguments recurses through one registration 120 deep: no cycle.
        container.register(FSNode.self) { (r, depth: Int) in
            FSNode(depth: depth, next: depth == 0 ? nil : try r.resolveThrows(FSNode.self, argument: depth - 1))
        }
        var node: FSNode? = try container.resolveThrows(FSNode.self, argument: 120)
        var depths: [Int] = []
        while let current = node {
            depths.append(current.depth)
            node = current.next
        }
        #expect(depths == Array((0...120).reversed()))
    }
}

// Compares two engines on a sequence and finds the first divergence no known difference explains.

public struct Divergence {
    /// The normalized sequence, cut after the diverging step.
    public let steps: [Step]
    public let step: Int
    public let oracle: String
    public let subject: String
}

/// Runs `steps` on a fresh engine of each kind; the first step whose outcomes differ, unless a known
/// difference explains it (the comparison then goes on with the next step).
public func firstDivergence(
    _ steps: [Step],
    oracle: () -> any Engine,
    subject: () -> any Engine
) -> Divergence? {
    let steps = normalized(steps)
    let expected = execute(oracle(), steps)
    let actual = execute(subject(), steps)
    for i in steps.indices where expected[i] != actual[i] {
        if knownDifferences.contains(where: { $0.explains(steps, i) }) { continue }
        return Divergence(steps: Array(steps[...i]), step: i, oracle: expected[i], subject: actual[i])
    }
    return nil
}

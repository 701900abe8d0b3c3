/// Waits between connects: the n-th wait in a row is a random time between
/// half and all of `min × 2ⁿ⁻¹`, capped at `max` (equal jitter), so that many
/// hosts that lost one server do not all come back at once.
struct Backoff {
    let min: Double
    let max: Double
    /// The waits since the last reset.
    private(set) var step = 0

    init(min: Double, max: Double) {
        self.min = min
        self.max = max
    }

    /// The next wait, in seconds.
    mutating func next<Random: RandomNumberGenerator>(using random: inout Random) -> Double {
        let ceiling = ceiling(of: step)
        step = Swift.min(step + 1, 62)
        return Double.random(in: (ceiling / 2)...ceiling, using: &random)
    }

    mutating func next() -> Double {
        var random = SystemRandomNumberGenerator()
        return next(using: &random)
    }

    /// After a connection that delivered something: the next wait is the shortest again.
    mutating func reset() { step = 0 }

    /// The longest wait at `step`.
    func ceiling(of step: Int) -> Double {
        Swift.min(max, min * Double(UInt64(1) << UInt64(Swift.min(step, 62))))
    }
}

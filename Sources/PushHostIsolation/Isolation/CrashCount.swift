/// The crashes of a plugin's process (a worker, a program) within
/// `--worker-crash-window`, and the backoff before it starts again: 0.1 s,
/// doubling for each crash in a row, at most 5 s. A process that ran 10 s
/// ends the row.
struct CrashCount {
    /// `--worker-crash-limit` and `--worker-crash-window`.
    let limit: Int
    let window: Double
    /// When the process last started (monotonic ns).
    var startedAt: UInt64 = 0
    private var crashes: [UInt64] = []
    private var inARow = 0

    init(limit: Int, window: Double) {
        self.limit = limit
        self.window = window
    }

    /// The crashes within the window, the last one counted.
    var recent: Int { crashes.count }

    /// Counts a crash at `now` (monotonic ns): the seconds to wait before
    /// the next start, or nil when the crashes are over the limit.
    mutating func count(at now: UInt64) -> Double? {
        if now &- startedAt > 10_000_000_000 { inARow = 0 }
        inARow += 1
        crashes = crashes.filter { now &- $0 < UInt64(window * 1e9) } + [now]
        guard crashes.count <= limit else { return nil }
        return min(0.1 * Double(1 << min(inARow - 1, 6)), 5)
    }
}

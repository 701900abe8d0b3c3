/// What became of a message an interceptor saw: what `Chain.proceed()`
/// returns, read from the message's report line, and what `intercept`
/// returns.
///
/// ```swift
/// func intercept(_ chain: Chain) async -> Outcome {
///     if chain.message.data["spam"] == "yes" { return .suppressed("spam") }
///     let outcome = await chain.proceed()
///     if outcome.status == .failed { context.log("\(chain.message.id) failed: \(outcome.reason ?? "?")") }
///     return outcome
/// }
/// ```
public struct Outcome: Sendable, Hashable {
    /// The message's `status`, as its report line says it.
    public enum Status: String, Sendable {
        /// The UI stage called at least one handler.
        case delivered
        /// A data plugin, or an interceptor, suppressed it.
        case suppressed
        /// A data plugin or an interceptor failed it.
        case failed
        /// No plugin was there to call in the UI stage.
        case undelivered
        /// The host stopped (a signal) before the message got a report line.
        case stopped
    }

    /// What became of the message: its report line's `status`, or the stop
    /// an interceptor returns.
    public let status: Status
    /// The report's `reason` (suppressed) or `error` (failed), if any.
    public let reason: String?
    /// The interceptor that stopped the message, if one did.
    public let by: String?
    /// The message's report line, as the host wrote it (JSON, one line);
    /// nil for an outcome that no report line gave.
    public let reportLine: String?

    /// Ends the message here, suppressed, with `reason` in its report line.
    public static func suppressed(_ reason: String? = nil) -> Outcome {
        Outcome(status: .suppressed, reason: reason, by: nil, reportLine: nil)
    }

    /// Ends the message here, failed, with `reason` in its report line.
    public static func failed(_ reason: String? = nil) -> Outcome {
        Outcome(status: .failed, reason: reason, by: nil, reportLine: nil)
    }

    /// The outcome of a message that got no report line: the host stopped first.
    static let stopped = Outcome(status: .stopped, reason: nil, by: nil, reportLine: nil)

    private init(status: Status, reason: String?, by: String?, reportLine: String?) {
        self.status = status
        self.reason = reason
        self.by = by
        self.reportLine = reportLine
    }

    /// The outcome a report line tells: its `status` (one this SDK does not
    /// know reads as `failed`), `reason` or else `error`, and `by`.
    init(reportLine: String) {
        self.init(
            status: CompactJSON.value(at: "status", in: reportLine).flatMap(Status.init(rawValue:)) ?? .failed,
            reason: CompactJSON.value(at: "reason", in: reportLine) ?? CompactJSON.value(at: "error", in: reportLine),
            by: CompactJSON.value(at: "by", in: reportLine), reportLine: reportLine)
    }

    /// Whether this outcome ends a message (suppressed or failed), as
    /// `intercept` may return without proceeding.
    var isStop: Bool { status == .suppressed || status == .failed }
}

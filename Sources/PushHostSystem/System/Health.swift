import Synchronization

/// What `/healthz` answers: unhealthy while the host starts, healthy from
/// the moment it would tell a service manager `READY=1`, and unhealthy
/// again from the start of a stop or after the report could not be
/// written; each time with a one-line reason.
package final class Health: Sendable {
    private let state = Mutex<(healthy: Bool, reason: String)>((false, "starting: loading the plugins"))

    package init() {}

    /// Whether the host is healthy, and why (not).
    package var current: (healthy: Bool, reason: String) {
        state.withLock { $0 }
    }

    /// The host is up: `status` says what it does.
    func ready(_ status: String) {
        state.withLock { $0 = (true, status) }
    }

    /// A stop began, or the run cannot go on: `reason` says which.
    func down(_ reason: String) {
        state.withLock { $0 = (false, reason) }
    }
}

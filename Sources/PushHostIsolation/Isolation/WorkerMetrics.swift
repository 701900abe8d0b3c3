import Prometheus
import PushHostSystem

/// What `--metrics` counts of the isolated plugins' workers: starts,
/// restarts, crashes by signal, memory restarts, and which plugins are
/// disabled. Each is rare, so each looks its series up in the registry.
package final class WorkerMetrics: Sendable {
    private let registry: PrometheusCollectorRegistry

    package init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    /// A worker of `plugin` started (the first time, or `again`).
    func started(_ plugin: String, again: Bool) {
        registry.makeCounter(descriptor: .pushhost("worker_starts_total", "Worker processes started, by plugin (the first and every restart)."), labels: [("plugin", plugin)]).increment()
        if again {
            registry.makeCounter(descriptor: .pushhost("worker_restarts_total", "Worker processes started again after a crash or a memory restart, by plugin."), labels: [("plugin", plugin)]).increment()
        }
    }

    /// A worker of `plugin` died: ended by `signal` (`SIGSEGV`), or `exit` when it exited.
    func crashed(_ plugin: String, signal: String) {
        registry.makeCounter(descriptor: .pushhost("worker_crashes_total", "Worker processes that died, by plugin and signal (exit: it exited on its own)."), labels: [("plugin", plugin), ("signal", signal)]).increment()
    }

    /// A worker of `plugin` went over `--worker-memory` and is restarted.
    func overMemory(_ plugin: String) {
        registry.makeCounter(descriptor: .pushhost("worker_memory_restarts_total", "Workers restarted for going over --worker-memory, by plugin."), labels: [("plugin", plugin)]).increment()
    }

    /// Whether isolated `plugin` is disabled (its worker crashed past `--worker-crash-limit`).
    func disabled(_ plugin: String, _ disabled: Bool) {
        registry.makeGauge(descriptor: .pushhost("plugin_disabled", "1 for an isolated plugin disabled after too many crashes of its worker, else 0."), labels: [("plugin", plugin)]).set(Int64(disabled ? 1 : 0))
    }
}

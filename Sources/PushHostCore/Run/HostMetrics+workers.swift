import PushHostIsolation
import PushHostPipeline

extension HostMetrics {
    /// What it counts of the isolated plugins' workers.
    var workers: WorkerMetrics { WorkerMetrics(registry: registry) }
}

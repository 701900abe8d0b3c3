#if canImport(Glibc)
import Glibc
#endif
import PushHostSystem
import Synchronization
import PushHostPlugins

/// [worker] Tells the host what its plugin's metrics are: each series as
/// it is declared (before the plugin's `create` returns), then, once a
/// second from a thread of its own, what the series that changed reached;
/// and once more when the plugin is destroyed. A worker that crashes loses
/// at most the last second's changes.
final class MetricsForwarder: @unchecked Sendable {
    /// Sends one frame to the host; false once the host is gone.
    private let send: @Sendable (borrowing ByteBuffer) -> Bool
    private let series = Mutex<[PluginSeries]>([])
    /// What each series last sent, by number (under `sending`).
    private let sending = Mutex<[UInt64: [Double]]>([:])
    private let flushing = Atomic<Bool>(false)

    init(send: @escaping @Sendable (borrowing ByteBuffer) -> Bool) {
        self.send = send
    }

    /// A new series: the host learns it now; the flushing thread starts with the first.
    func declared(_ made: PluginSeries) {
        var frame = ByteBuffer(capacity: 256)
        MetricFrames.appendDeclaration(of: made, to: &frame)
        _ = send(frame)
        series.withLock { $0.append(made) }
        if !flushing.exchange(true, ordering: .relaxed) {
            DetachedThread.startOrFail { [self] in
                while true {
                    sleep(1)
                    guard flush() else { return }
                }
            }
        }
    }

    /// Sends what changed since the last flush; false once the host is gone.
    @discardableResult
    func flush() -> Bool {
        let all = series.withLock { $0 }
        return sending.withLock { last in
            let changed = all.compactMap { series -> (number: UInt64, values: [Double])? in
                let values = series.reached
                return last[series.id] == values ? nil : (series.id, values)
            }
            guard !changed.isEmpty else { return true }
            var frame = ByteBuffer(capacity: 64 * changed.count)
            MetricFrames.appendValues(changed, to: &frame)
            guard send(frame) else { return false }
            for (number, values) in changed { last[number] = values }
            return true
        }
    }
}

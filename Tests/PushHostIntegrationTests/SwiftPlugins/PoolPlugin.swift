extension PluginPackage {
    /// `pool` (data): for each message, more blocking work items on
    /// Dispatch's global queue than its thread pool has threads, and a
    /// handler suspended until they are done; so work stays queued across
    /// the pool's checks of its threads (each reads `/proc/TID/stat`).
    static let pool = """
        import Dispatch
        import Foundation
        import PushHostPlugin
        import Synchronization

        /// Keeps Dispatch's thread pool busy, suspended until it is done.
        final class Pool: DataPlugin {
            static let name = "pool"
            static let version = "0.1.0"
            static let summary = "Queues blocking work on Dispatch's pool for each message, and continues once it is done."

            init(context: PluginContext) throws {}

            func onData(_ message: Message) async throws -> Verdict {
                let items = ProcessInfo.processInfo.activeProcessorCount * 4
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    let group = DispatchGroup()
                    for _ in 0..<items {
                        DispatchQueue.global().async(group: group) { usleep(20_000) }
                    }
                    group.notify(queue: .global()) { done.resume() }
                }
                return .continue
            }
        }

        @_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Pool.self) }

        """
}

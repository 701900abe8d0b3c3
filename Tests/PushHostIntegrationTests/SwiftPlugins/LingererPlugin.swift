extension PluginPackage {
    /// `lingerer` (data, source): what a stop meets in a Swift plugin. Its
    /// data handler writes `started ID`, then waits `data.sleep_ms`
    /// (cancellable); cancelled, it writes `cancelled ID` and takes 100 ms
    /// more to end, a wait no cancellation cuts short; then `ended ID`. Its
    /// `run` waits for its cancellation and returns, or, with the setting
    /// `stubborn` `yes`, writes `running` and ignores its cancellation for
    /// good. Its `shutdown` writes `shutdown`.
    static let lingerer = """
        import Dispatch
        import Foundation
        import PushHostPlugin
        import Synchronization

        /// A data handler that ends a while after its cancellation, and a
        /// source that may never end.
        final class Lingerer: DataPlugin, SourcePlugin {
            static let name = "lingerer"
            static let version = "0.1.0"
            static let summary = "Data handlers that end 100 ms after their cancellation; a source that may ignore its own."

            private let log: LineFile?
            private let stubborn: Bool

            init(context: PluginContext) throws {
                log = context.setting("log").map(LineFile.init(path:))
                stubborn = context.setting("stubborn") == "yes"
            }

            func onData(_ message: Message) async throws -> Verdict {
                log?.append("started", message.id)
                do {
                    try await Task.sleep(for: .milliseconds(Int(message.data["sleep_ms"] ?? "") ?? 0))
                } catch {
                    log?.append("cancelled", message.id)
                    await Self.uncancellable(milliseconds: 100)
                }
                log?.append("ended", message.id)
                return .continue
            }

            func run(_ intake: Intake) async throws {
                guard stubborn else {
                    while !Task.isCancelled { try? await Task.sleep(for: .seconds(60)) }
                    return
                }
                log?.append("running")
                while true { await Self.uncancellable(milliseconds: 50) }
            }

            func shutdown() {
                log?.append("shutdown")
            }

            /// Waits on Dispatch's clock, which a task's cancellation does not reach.
            static func uncancellable(milliseconds: Int) async {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { done.resume() }
                }
            }
        }

        @_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Lingerer.self) }

        """
}

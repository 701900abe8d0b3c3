import CPushHost
import Dispatch

/// The source role of one plugin instance: its `run`, in a task of its own
/// from the host's `start` until the task ends, cancelled at `stop`.
final class SourceRun: @unchecked Sendable {
    private let plugin: any SourcePlugin
    private let intake: Intake
    private let context: PluginContext
    /// The task `start` began; the host's dispatch thread alone touches it.
    private var task: Task<Void, Never>?

    init(_ plugin: any SourcePlugin, intake: UnsafePointer<ph_intake>, context: PluginContext) {
        self.plugin = plugin
        self.intake = Intake(host: context.host, table: intake)
        self.context = context
    }

    /// The `ph_source` table every instance offers (the instance is its
    /// `self`), made once and kept for the life of the process.
    nonisolated(unsafe) static let table: UnsafeMutablePointer<ph_source> = {
        let table = UnsafeMutablePointer<ph_source>.allocate(capacity: 1)
        table.initialize(to: ph_source(
            struct_size: UInt32(MemoryLayout<ph_source>.size),
            start: { box in PluginBox.from(box).startSource() },
            stop: { box in PluginBox.from(box).stopSource() }))
        return table
    }()

    /// The host's `ph.intake/1`, or nil when it does not offer one with
    /// `submit_record` (a host older than 1.2).
    static func intake(of host: UnsafePointer<ph_host>) -> UnsafePointer<ph_intake>? {
        guard let intake = host.pointee.get_extension(host, PH_EXT_INTAKE)?.assumingMemoryBound(to: ph_intake.self),
              covers(intake, \.submit_record) else { return nil }
        return intake
    }

    /// `start`: `run` begins in a task of its own. An error it throws
    /// (other than its cancellation at `stop`) is logged.
    func start() -> Int32 {
        task = Task { [plugin, intake, context] in
            do {
                try await plugin.run(intake)
            } catch {
                if !Task.isCancelled { context.log("stopped producing records: \(error)", level: .error) }
            }
        }
        return 0
    }

    /// `stop`: `run`'s task is cancelled, and its `submit`s return `.stopped`.
    func stop() {
        task?.cancel()
    }

    /// Waits for `run` to end, so that nothing of the plugin runs after `destroy`.
    func finish() {
        guard let task else { return }
        task.cancel()
        task.waitForEnd()
    }
}

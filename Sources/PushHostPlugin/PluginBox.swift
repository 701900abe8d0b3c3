#if canImport(Glibc)
import Glibc
#endif
import CPushHost

/// One plugin instance, as the host's `self` pointer: the Swift object and
/// the roles it plays, reached from the C handlers.
final class PluginBox: @unchecked Sendable {
    let context: PluginContext
    let plugin: any Plugin
    private let data: (any DataPlugin)?
    private let background: (any BackgroundPlugin)?
    private let screen: (any ScreenPlugin)?
    private let token: (any TokenPlugin)?

    private init(plugin: any Plugin, context: PluginContext) {
        self.plugin = plugin
        self.context = context
        data = plugin as? any DataPlugin
        background = plugin as? any BackgroundPlugin
        screen = plugin as? any ScreenPlugin
        token = plugin as? any TokenPlugin
    }

    /// `create`: makes the exported type; a thrown error is logged and refuses the plugin.
    static func create(host: UnsafePointer<ph_host>, config: OpaquePointer) -> UnsafeMutableRawPointer? {
        let context = PluginContext(host: host, config: config)
        guard let type = Exported.current?.type else { return nil }
        do {
            let box = PluginBox(plugin: try type.init(context: context), context: context)
            return Unmanaged.passRetained(box).toOpaque()
        } catch {
            context.log("could not start: \(error)", level: .error)
            return nil
        }
    }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> PluginBox {
        Unmanaged<PluginBox>.fromOpaque(pointer!).takeUnretainedValue()
    }

    /// `destroy`: the plugin's `shutdown`, then the instance goes.
    static func release(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        let box = Unmanaged<PluginBox>.fromOpaque(pointer).takeRetainedValue()
        box.plugin.shutdown()
    }

    /// Copies the message, gives `PH_PENDING`, and completes it when the
    /// async handler returns (its verdict) or throws (failed, logged).
    func onData(_ message: OpaquePointer) -> ph_verdict {
        guard let data else { return PH_CONTINUE }
        let copy = Message(copying: message, from: context.host)
        let pending = PendingMessage(host: context.host, message: message)
        let context = context
        Task.detached {
            let verdict: ph_verdict
            do {
                verdict = try await data.onData(copy) == .continue ? PH_CONTINUE : PH_SUPPRESS
            } catch {
                context.log("message \(copy.id) failed: \(error)", level: .error)
                verdict = PH_FAILED
            }
            pending.complete(verdict)
        }
        return PH_PENDING
    }

    func onBackground(_ message: OpaquePointer) {
        background?.onBackground(Message(copying: message, from: context.host))
    }

    func onTarget(_ message: OpaquePointer) {
        screen?.onTarget(Message(copying: message, from: context.host))
    }

    func onMismatch(_ message: OpaquePointer) {
        screen?.onMismatch(Message(copying: message, from: context.host))
    }

    func onToken(_ token: UnsafePointer<CChar>, previous: UnsafePointer<CChar>?) {
        self.token?.onToken(String(cString: token), previous: previous.map { String(cString: $0) })
    }
}

/// A message the host lends until `complete`, which this calls exactly once.
private struct PendingMessage: @unchecked Sendable {
    let host: UnsafePointer<ph_host>
    let message: OpaquePointer

    func complete(_ verdict: ph_verdict) {
        host.pointee.complete(host, message, verdict)
    }
}

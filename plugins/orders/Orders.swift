// orders: a foreground screen in Swift, for the "orders" target. It gets the
// messages aimed at "orders" while it is visible (onTarget), and, when it
// is the top screen, those no visible screen claims (onMismatch). It only
// says what it got, through the host's log.
import PushHostPlugin

final class Orders: ScreenPlugin {
    static let name = "orders"
    static let version = "1.0.0"
    static let summary = "Foreground screen in Swift for the \"orders\" target."
    static let targets = ["orders"]

    private let context: PluginContext

    init(context: PluginContext) throws {
        self.context = context
    }

    func onTarget(_ message: Message) {
        context.log("orders target \(message.id) \(message.title ?? "-")")
    }

    func onMismatch(_ message: Message) {
        context.log("orders mismatch \(message.id) \(message.target ?? "-")")
    }
}

@_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Orders.self) }

// orders: a foreground screen in Swift, for the "orders" target. It gets the
// messages aimed at "orders" while it is visible (onTarget), and, when it
// is the top screen, those no visible screen claims (onMismatch). As an
// ActionPlugin it also gets what a person did with the notification of an
// order (onAction): a tap, or one of the message's buttons (`actions`), such
// as a reply with the text typed into it. It only says what it got, through
// the host's log:
//
//   orders target <id> <title or ->
//   orders mismatch <id> <target or ->
//   orders action <id> tap
//   orders action <id> reply "<input>"     (the input as a Swift string literal)
import PushHostPlugin

final class Orders: ScreenPlugin, ActionPlugin {
    static let name = "orders"
    static let version = "1.0.0"
    static let summary = "Foreground screen in Swift for the \"orders\" target; takes taps and replies."
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

    /// `action` is `tap`, `ID`, or `ID "INPUT"` for a reply.
    func onAction(_ action: Action, message: Message) {
        context.log("orders action \(message.id) \(action)")
    }
}

@_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Orders.self) }

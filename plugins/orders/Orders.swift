// orders: a foreground screen in Swift, for the "orders" target. It gets the
// messages aimed at "orders" while it is visible (onTarget), and, when it
// is the top screen, those no visible screen claims (onMismatch). As an
// ActionPlugin it also gets what a person did with the notification of an
// order (onAction): a tap, or one of the message's buttons (`actions`), such
// as a reply with the text typed into it. It counts what it got as metrics
// of its own (ph.metrics/1, at /metrics with --metrics:
// orders_messages_total{route="target"|"mismatch"} and orders_actions_total),
// and says it through the host's log:
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
    static let usesMetrics = true

    private let context: PluginContext
    /// Nil when the host has no ph.metrics/1: nothing is counted then.
    private let onTarget: Metric?
    private let onMismatch: Metric?
    private let actions: Metric?

    init(context: PluginContext) throws {
        self.context = context
        let help = "Messages the orders screen got, by route."
        onTarget = context.counter("messages_total", help: help, labels: ["route": "target"])
        onMismatch = context.counter("messages_total", help: help, labels: ["route": "mismatch"])
        actions = context.counter("actions_total", help: "Taps and replies on orders' notifications.")
    }

    func onTarget(_ message: Message) {
        onTarget?.add()
        context.log("orders target \(message.id) \(message.title ?? "-")")
    }

    func onMismatch(_ message: Message) {
        onMismatch?.add()
        context.log("orders mismatch \(message.id) \(message.target ?? "-")")
    }

    /// `action` is `tap`, `ID`, or `ID "INPUT"` for a reply.
    func onAction(_ action: Action, message: Message) {
        actions?.add()
        context.log("orders action \(message.id) \(action)")
    }
}

@_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Orders.self) }

/// A pushhost plugin written in Swift: a class that conforms to `Plugin` and
/// to the protocol of each role it plays, exported with one line.
///
/// ```swift
/// import PushHostPlugin
///
/// final class Hello: BackgroundPlugin {
///     static let name = "hello"
///     static let version = "1.0.0"
///     let context: PluginContext
///
///     init(context: PluginContext) throws { self.context = context }
///
///     func onBackground(_ message: Message) {
///         context.log("hello, \(message.title ?? "no title")")
///     }
/// }
///
/// @_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Hello.self) }
/// ```
///
/// The host calls the handlers of one plugin one at a time, except that a
/// data handler (`async`) may still be running while the host calls
/// another handler: a plugin that keeps mutable state protects it (an
/// actor, a `Mutex`), which is why plugins are `Sendable`.
public protocol Plugin: AnyObject, Sendable {
    /// Unique among loaded plugins, made of `a-z`, `0-9`, `_` and `-`.
    static var name: String { get }
    /// The plugin's version, as `pushhost plugins` shows it (`1.0.0`); the
    /// host does not read it otherwise.
    static var version: String { get }
    /// One line saying what the plugin does, for `pushhost plugins`.
    static var summary: String { get }

    /// Makes the plugin, once, before any message; throwing refuses it (the
    /// error's description is logged).
    init(context: PluginContext) throws

    /// Called once at shutdown, on the host's thread, after the last UI
    /// handler, once every `intercept` that passed its message on (or
    /// stopped it) returned, a source's `run` returned, and every data
    /// handler that suspended and had not given its verdict by then (one
    /// past `--data-timeout`, or cut off by a stop) ended: those two are
    /// cancelled first, and should end soon. Not waited for: an `intercept`
    /// that still holds its message (its `proceed()` returns `stopped`). A
    /// `run` or a handler that ignores its cancellation keeps `shutdown`
    /// from being called: the host gives up on the plugin when
    /// `--stop-timeout` runs out, and exits without it.
    func shutdown()

    /// Whether it keeps things in its state folder (`context.stateFolder`),
    /// which `pushhost plugins` then lists as its `state` role.
    static var usesStateFolder: Bool { get }

    /// Whether it makes metrics of its own (``PluginContext/counter(_:help:labels:)``
    /// and the others), which its descriptor then declares (`ph.metrics/1`).
    static var usesMetrics: Bool { get }
}

extension Plugin {
    /// No summary: `pushhost plugins` shows no line for it.
    public static var summary: String { "" }
    /// No state folder is declared.
    public static var usesStateFolder: Bool { false }
    /// No metrics of its own are declared.
    public static var usesMetrics: Bool { false }
    /// Does nothing.
    public func shutdown() {}
}

/// The data role: runs for every message before any UI handler.
///
/// Returning a verdict completes the data stage for this plugin; throwing
/// fails it (the message gets no UI stage and is reported `failed`, with the
/// error's description in the log).
///
/// The handler starts on the host's thread, at once. One that returns or
/// throws without suspending gives its verdict right there, as a C plugin
/// returning from `on_data` would: no task hop, nothing waits, and no task
/// is started for it (the handlers run on one task the plugin keeps). One
/// that suspends (an `await` that really waits) lets the host go on with
/// other messages while it is under way, each then on a task of its own;
/// the host still calls UI handlers in the order messages arrived. Either
/// way, keep the work before the first `await` short: until then the host
/// waits for it.
public protocol DataPlugin: Plugin {
    /// Decides whether `message` goes on to the UI stage: `.continue` or
    /// `.suppress`; a thrown error fails the message, and its description
    /// is logged under the plugin's name.
    ///
    /// - Parameter message: The message, lent by the host until the verdict
    ///   is given; a copy is kept only when the plugin still holds it then.
    /// - Returns: The plugin's verdict on the message.
    func onData(_ message: Message) async throws -> Verdict
}

/// The background role: the app is in the background (or in the foreground
/// with no screen visible).
public protocol BackgroundPlugin: Plugin {
    /// Called on the host's thread for a message on the `background` route,
    /// after every data plugin let it go on; every background plugin gets
    /// it, in load order. The host waits for the call to return.
    ///
    /// - Parameter message: The message, lent for the call; a copy is kept
    ///   only when the plugin still holds it once the call returned.
    ///
    /// Throwing says this plugin could not do its part: the message's status
    /// becomes `failed`, with the error's description, after the plugin's
    /// name, in its report line (ABI 1.2's `fail`; a 1.1 host only logs it).
    func onBackground(_ message: Message) throws
}

/// The foreground role: a screen, which gets the messages aimed at one of
/// its `targets` while it is visible, and, when it is the top screen, the
/// messages no visible screen claims.
public protocol ScreenPlugin: Plugin {
    /// The targets this screen claims; no two screens may share one.
    static var targets: [String] { get }
    /// Called on the host's thread for a message on the `target` route:
    /// this screen is the first visible one, top first, whose `targets`
    /// hold the message's target. The host waits for the call to return.
    ///
    /// - Parameter message: The message, lent for the call.
    ///
    /// Throwing, as for `BackgroundPlugin/onBackground(_:)`, fails the message.
    func onTarget(_ message: Message) throws
    /// Called on the host's thread for a message on the `mismatch` route:
    /// this screen is the top screen, and no visible screen claims the
    /// message's target (or the message has none). The host waits for the
    /// call to return.
    ///
    /// - Parameter message: The message, lent for the call.
    ///
    /// Throwing fails the message, as for `onTarget(_:)`.
    func onMismatch(_ message: Message) throws
}

/// The token role: a new registration token replaced `previous` (nil for
/// the first one).
public protocol TokenPlugin: Plugin {
    /// Called on the host's thread once the host stored a new token, which
    /// `PluginContext.currentToken` then reads. A token event that repeats
    /// the stored token, or removes it, calls no token plugin.
    ///
    /// - Parameters:
    ///   - token: The new registration token.
    ///   - previous: The token it replaced, or nil when there was none.
    func onToken(_ token: String, previous: String?)
}

/// The action role: a person acted on the notification of a message this
/// host delivered: tapped it (`action.isTap`), or chose one of the message's
/// `actions`, typing `action.input` into a reply action.
///
/// Any plugin may play it. A screen gets the action when it is the first
/// visible screen whose targets hold the message's target; when none is,
/// every plugin with this role that is not a screen gets it (to bring the
/// app up, say), and the host keeps the action for the screen that claims
/// the target, when that screen plays this role, until it becomes visible,
/// even across restarts (for at most `--retain-for`).
///
/// ```swift
/// func onAction(_ action: Action, message: Message) {
///     if action.isTap { open(message) }
///     else if action.id == "reply", let text = action.input { send(text, to: message.id) }
/// }
/// ```
///
/// The message is the one delivered, as `Message` reads any other: its
/// `actions`, `image`, `click` and so on describe what the notification showed.
public protocol ActionPlugin: Plugin {
    /// Called on the host's thread with what a person did and the message
    /// it was done to. The host waits for the call to return.
    ///
    /// - Parameters:
    ///   - action: The tap, or the button chosen, with the text typed into
    ///     a reply.
    ///   - message: The message as it was delivered, lent for the call.
    func onAction(_ action: Action, message: Message)
}

/// The interceptor role: sees each push message before the data stage, as
/// an OkHttp interceptor sees a request. It may read and edit the message
/// (`chain.message`, `chain.set`), pass it on and learn its outcome
/// (`await chain.proceed()`), or stop it by returning `.suppressed(reason)`
/// or `.failed(reason)` without proceeding.
///
/// ```swift
/// func intercept(_ chain: Chain) async -> Outcome {
///     let message = chain.message
///     if message.data["test"] == "yes" { return .suppressed("a test message") }
///     chain.set("data.seen_by", to: Self.name)
///     let outcome = await chain.proceed()
///     context.log("\(message.id): \(outcome.status)")    // e.g. "m-1: delivered"
///     return outcome
/// }
/// ```
///
/// Interceptors run in load order, each after the one before proceeded.
/// `intercept` starts on the host's thread, at once: one that proceeds (or
/// returns) without suspending does so during the host's call, as a C
/// interceptor would. One that suspends holds its message, and the host goes
/// on with the messages behind it; the held message gets its report line
/// once it is passed on or stopped. `proceed()` returns when the message's
/// report line is written (`outcome.reportLine`), with `status`, `reason`,
/// and `by` (the interceptor that stopped it, if one did); what `intercept`
/// returns after proceeding changes nothing (a stop returned then is
/// ignored, with a warning in the log). At shutdown, `shutdown`
/// comes once every `intercept` that passed its message on (or stopped it)
/// returned; a `proceed()` still waiting then (the host stopped on a signal
/// before the report line) returns the status `stopped`. A message still
/// held then goes nowhere, and its `proceed()` returns `stopped` at once.
public protocol Interceptor: Plugin {
    /// Takes one push message's turn at this interceptor: reads and edits
    /// it through `chain`, then passes it on with `chain.proceed()` or
    /// stops it by returning `.suppressed(_:)` or `.failed(_:)` without
    /// proceeding.
    ///
    /// - Parameter chain: The message's way through the interceptors, as
    ///   this one holds it.
    /// - Returns: After proceeding, the outcome to pass on (usually the one
    ///   `proceed()` returned); without proceeding, the stop to make.
    func intercept(_ chain: Chain) async -> Outcome
}

/// What a person did with a notification.
public struct Action: Sendable, Hashable, CustomStringConvertible {
    /// `"tap"` for the notification itself, else the `id` of one of the
    /// message's `actions`.
    public let id: String
    /// The text of a reply action (one whose `isInput` is true), else nil.
    public let input: String?

    /// An action with `id` (`"tap"`, or the id of one of the message's
    /// `actions`) and, for a reply, the text typed; for a plugin's own
    /// tests, since the host makes the actions it hands a plugin.
    public init(id: String, input: String? = nil) {
        self.id = id
        self.input = input
    }

    /// A tap on the notification itself.
    public static let tap = Action(id: "tap")

    /// Whether this is a tap on the notification itself, not one of its actions.
    public var isTap: Bool { id == Action.tap.id }

    /// `tap`, `ID`, or `ID "INPUT"` (the input quoted as a Swift string literal).
    public var description: String {
        input.map { "\(id) \($0.debugDescription)" } ?? id
    }
}

/// What a data handler decides for a message.
public enum Verdict: Sendable {
    /// Go on to the UI stage.
    case `continue`
    /// Handled here: no UI stage.
    case suppress
}

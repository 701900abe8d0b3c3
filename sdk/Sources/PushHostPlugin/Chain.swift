import CPushHost
import Dispatch
import Synchronization

/// One push message on its way through the interceptors, as an
/// `Interceptor` holds it: read it, edit it, then pass it on with
/// `proceed()`, or stop it by returning an outcome without proceeding.
///
/// ```swift
/// let message = chain.message
/// if message.image == nil { chain.set("notification.image", to: "https://example.com/logo.png") }
/// let outcome = await chain.proceed()    // the message's outcome, once it is reported
/// ```
///
/// Safe to use from any task or thread. The turn of this interceptor ends
/// with `proceed()`, with `intercept` returning, or when the host shuts the
/// plugin down; after that `set` and `remove` change nothing and return
/// false, and `message` is the message as it was when the turn ended.
public final class Chain: Sendable {
    /// Where this interceptor's turn stands.
    private enum Turn {
        /// The interceptor holds the message: it may read, set, proceed or stop it.
        case open
        /// Passed on; the outcome comes with the report line.
        case proceeded
        /// Stopped when `intercept` returned.
        case stopped
        /// Ended by the plugin's shutdown: nothing reaches the host any more.
        case closed
    }

    /// The turn, and the storage of the `Message`s handed out: the host's
    /// message while the turn is open (made on first read, dropped by an
    /// edit), its copy once the turn ended.
    private struct State {
        var turn = Turn.open
        var storage: MessageStorage?
        /// Whether the plugin's `intercept` has not returned yet.
        var running = true
        /// Left once `intercept` returns, when the plugin's shutdown waits for it.
        var shutdown: DispatchGroup?
    }

    /// The outcome once known, and the `proceed()` calls waiting for it.
    private struct Waiting {
        var outcome: Outcome?
        var waiters: [CheckedContinuation<Outcome, Never>] = []
    }

    /// The host's chain; its API may be called from any thread, hence
    /// `@unchecked Sendable`.
    private struct Handle: @unchecked Sendable {
        let raw: OpaquePointer
    }

    private let handle: Handle
    private let interception: Interception
    /// Held across every call of the host's chain API, so that none comes
    /// after the turn ended, not even one racing with the plugin's shutdown.
    private let state = Mutex(State())
    private let waiting = Mutex(Waiting())

    init(_ raw: OpaquePointer, interception: Interception) {
        handle = Handle(raw: raw)
        self.interception = interception
    }

    /// The message as it stands, the edits of earlier interceptors and of
    /// this one applied; read from the host on demand, as any `Message`.
    public var message: Message {
        state.withLock { state in
            if let storage = state.storage { return Message(storage: storage) }
            let storage = MessageStorage(host: interception.context.host, handle: interception.api.message(handle.raw))
            state.storage = storage
            return Message(storage: storage)
        }
    }

    /// Sets the normalized field at the dotted `path` to `json`, a JSON
    /// value as text (`"\"text\""`, `"3"`, `"[1,2]"`), or removes it when
    /// `json` is nil: `set("data.seen", json: "true")`. False, with the
    /// message unchanged, when the host refused (a bad path or bad JSON) or
    /// the turn already ended. A `Message` read before keeps what it read.
    @discardableResult
    public func set(_ path: String, json: String?) -> Bool {
        state.withLock { state in
            guard state.turn == .open else {
                interception.context.log("set \(path) after the message was passed on or stopped: ignored", level: .warning)
                return false
            }
            if var storage = state.storage.take() { MessageStorage.endBorrow(&storage) }
            return interception.api.set(handle.raw, path, json) == 0
        }
    }

    /// Sets the field at the dotted `path` to the JSON string `text`:
    /// `set("notification.title", to: "Order 42 shipped")`.
    @discardableResult
    public func set(_ path: String, to text: String) -> Bool {
        set(path, json: CompactJSON.quoted(text))
    }

    /// Removes the field at the dotted `path`.
    @discardableResult
    public func remove(_ path: String) -> Bool {
        set(path, json: nil)
    }

    /// Passes the message on (to the next interceptor, else the data stage)
    /// and returns its outcome, once its report line is written. A second
    /// call returns the same outcome; after the turn ended otherwise, the
    /// outcome it ended with (`stopped` after the plugin's shutdown).
    public func proceed() async -> Outcome {
        state.withLock { state in
            guard state.turn == .open else { return }
            let message = end(&state, as: .proceeded)
            interception.proceeding(self, message: message)
            interception.api.proceed(handle.raw)
        }
        return await outcome()
    }

    /// Runs the plugin's `intercept` on this chain, then ends the turn with
    /// what it returned (see `end(returning:)`).
    nonisolated(nonsending) func run(_ plugin: any Interceptor) async {
        end(returning: await plugin.intercept(self))
        state.withLock { state in
            state.running = false
            state.shutdown?.leave()
        }
        interception.finished(self)
    }

    /// Ends the turn as `intercept` returned `returned`: a message not
    /// proceeded is stopped (suppressed or failed, with the outcome's
    /// reason; an outcome that is no stop, which only `proceed()` gives,
    /// fails it); a message proceeded stands, whatever was returned.
    private func end(returning returned: Outcome) {
        let proceeded = state.withLock { state in
            guard state.turn == .open else { return state.turn == .proceeded }
            end(&state, as: .stopped)
            let outcome = returned.isStop ? returned : .failed("intercept returned \(returned.status) without proceeding")
            interception.api.stop(handle.raw, outcome.status == .suppressed ? PH_SUPPRESS : PH_FAILED, outcome.reason)
            deliver(outcome)
            return false
        }
        // A stop the handler made itself, not the outcome proceed() gave.
        if proceeded, returned.isStop, returned.reportLine == nil {
            interception.context.log(
                "message \(message.id) was already passed on: the \(returned.status) outcome intercept returned is ignored",
                level: .warning)
        }
    }

    /// `destroy`: ends a turn still open without a call to the host (its
    /// message stays readable), and gives `stopped` to every `proceed()`
    /// still waiting, and to any later one. When the turn had ended and
    /// `intercept` still runs, `shutdown` is entered, and left once
    /// `intercept` returns.
    func close(_ shutdown: DispatchGroup) {
        state.withLock { state in
            if state.turn == .open {
                end(&state, as: .closed)
            } else if state.running {
                shutdown.enter()
                state.shutdown = shutdown
            }
        }
        deliver(.stopped)
    }

    /// Ends the turn as `turn`, keeping a copy of the message (the host
    /// lends it only until the chain's proceed or stop), and returns the
    /// host's message.
    @discardableResult
    private func end(_ state: inout State, as turn: Turn) -> OpaquePointer {
        let message = interception.api.message(handle.raw)
        let storage = state.storage ?? MessageStorage(host: interception.context.host, handle: message)
        storage.keepCopy()
        state.storage = storage
        state.turn = turn
        return message
    }

    /// Gives `outcome` to every `proceed()` waiting and to later ones; only
    /// the first outcome counts.
    func deliver(_ outcome: Outcome) {
        let waiters = waiting.withLock { waiting -> [CheckedContinuation<Outcome, Never>] in
            guard waiting.outcome == nil else { return [] }
            waiting.outcome = outcome
            defer { waiting.waiters = [] }
            return waiting.waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    /// The outcome, at once when known, else once delivered.
    private func outcome() async -> Outcome {
        if let outcome = waiting.withLock({ $0.outcome }) { return outcome }
        return await withCheckedContinuation { waiter in
            let outcome = waiting.withLock { waiting in
                if waiting.outcome == nil { waiting.waiters.append(waiter) }
                return waiting.outcome
            }
            if let outcome { waiter.resume(returning: outcome) }
        }
    }
}

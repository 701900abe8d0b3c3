#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import Logging
import PushHostMessage
import PushHostSystem
import Synchronization
import PushHostPlugins

/// One interceptor's turn with one message: what the `ph_chain *` it gets
/// names, from `intercept` until its one call of `proceed` or `stop`.
///
/// A chain is a slot of ``Handles/chains`` holding this object's address;
/// each turn takes a fresh slot, and an ended turn leaves a mark there that
/// names the interceptor, so a call through a chain that already ended (a
/// second call, a late one, a stray pointer) is told so and changes
/// nothing. Links are kept for later turns instead of being freed (see
/// ``pool``), so that a call racing with the end of a turn locks an object
/// that exists and finds it in another turn.
///
/// The chain's calls come from any thread; everything they read or change
/// is under `turn`'s lock, which the dispatch thread takes too.
package final class ChainLink: @unchecked Sendable {
    /// How a turn ended.
    package enum Ending {
        case proceeded
        case stopped(InterceptorStop.Effect, reason: String?)
        /// The interceptor broke the chain's rules (a second call, a verdict
        /// that is neither suppress nor failed): the message fails.
        case broken(String)
    }

    private enum State {
        case idle
        case open
        case ended(Ending)
    }

    /// Reached from plugins' threads only under the lock.
    private struct Turn: @unchecked Sendable {
        var slot = Handles.none
        var state = State.idle
        /// Whether `intercept` is still running: an ending then needs no post.
        var inCall = false
        var carried: (InFlight)?
        /// Whose turn it is.
        var plugin: InterceptorPlugin?
    }

    /// A turn that ended on a plugin's thread, for the dispatch thread.
    package struct Posted: @unchecked Sendable {
        package let link: ChainLink
        package let slot: UInt
    }

    private let turn = Mutex(Turn())
    /// The turn's slot as the plugin's pointer; read by the dispatch thread only.
    private(set) package var opaque = OpaquePointer(Handles.none)

    private init() {}

    /// Every link made, idle ones waiting for a turn: none is ever freed.
    private static let pool = Mutex<[ChainLink]>([])

    // MARK: The dispatch thread

    /// A link for `plugin`'s turn with `carried`, under a fresh chain, marked
    /// as in the `intercept` call: `spare` (an idle link), else one from the pool.
    package static func open(carrying carried: InFlight, by plugin: InterceptorPlugin, spare: ChainLink?) -> ChainLink {
        let link = spare ?? pool.withLock { $0.popLast() } ?? ChainLink()
        let slot = Handles.chains.claim(for: UInt(bitPattern: Unmanaged.passUnretained(link).toOpaque()))
        link.opaque = OpaquePointer(slot)
        link.turn.withLock { turn in
            turn = Turn(slot: slot, state: .open, inCall: true, carried: carried, plugin: plugin)
        }
        return link
    }

    /// Puts an idle link back in the pool.
    package static func recycle(_ link: ChainLink) {
        pool.withLock { $0.append(link) }
    }

    /// After `intercept` returned: the turn's ending (the link is idle, for
    /// the caller to use again or `recycle`), or nil when the interceptor
    /// holds the message,
    /// which then keeps a copy of its bytes (under the lock, so that no
    /// `set` on another thread races with the copy).
    package func returned() -> Ending? {
        turn.withLock { turn in
            turn.inCall = false
            guard case .ended(let ending) = turn.state else {
                turn.carried!.message.detach(locked: true)
                return nil
            }
            close(&turn, .ended)
            return ending
        }
    }

    /// A posted turn: its ending and what it carried (the link goes back
    /// to the pool), or nil when that turn was closed already (the host stopped).
    package static func take(_ posted: Posted) -> (Ending, InFlight)? {
        let taken = posted.link.turn.withLock { turn -> (Ending, InFlight)? in
            guard UInt(bitPattern: turn.slot) == posted.slot, case .ended(let ending) = turn.state, let carried = turn.carried else {
                return nil
            }
            posted.link.close(&turn, .ended)
            return (ending, carried)
        }
        if taken != nil { recycle(posted.link) }
        return taken
    }

    /// Closes a turn that has not ended (its deadline passed, or the host
    /// stops) and gives what it carried (the link goes back to the pool);
    /// nil when it ended meanwhile (its post is on the way).
    package func abandon(_ closing: InterceptorName.Closing) -> (InFlight)? {
        let carried = turn.withLock { turn -> (InFlight)? in
            guard case .open = turn.state, let carried = turn.carried else { return nil }
            close(&turn, closing)
            return carried
        }
        if carried != nil { Self.recycle(self) }
        return carried
    }

    /// Ends the turn: its slot keeps only the interceptor's mark.
    private func close(_ turn: inout Turn, _ closing: InterceptorName.Closing) {
        Handles.chains.retire(turn.slot, mark: turn.plugin!.interceptor.mark(closing))
        turn = Turn()
        opaque = OpaquePointer(Handles.none)
    }

    // MARK: The interceptor's calls (any thread)

    /// `message`: the carried message's handle, or one that names no
    /// message once the turn ended.
    package static func message(_ chain: OpaquePointer) -> OpaquePointer {
        let handle = withOpenTurn(chain, call: "message") { _, turn in turn.carried?.message.opaque }
        return (handle ?? nil) ?? OpaquePointer(Handles.none)
    }

    /// `set`: applies the edit to the carried message; 0, or -1 (logged)
    /// with the message unchanged.
    package static func set(_ chain: OpaquePointer, path: UnsafePointer<CChar>, json: UnsafePointer<CChar>?) -> Int32 {
        let text = String(cString: path)
        let answer = withOpenTurn(chain, call: "set") { _, turn -> Int32 in
            guard case .open = turn.state, let message = turn.carried?.message else {
                turn.plugin?.logger.warning("set \(text) after the turn's proceed or stop; ignored")
                return -1
            }
            do throws(MessageEdit.Refusal) {
                let edit = try MessageEdit(path: text, json: json.map { UnsafeRawBufferPointer(start: $0, count: strlen($0)) })
                try message.apply(edit)
                return 0
            } catch {
                turn.plugin?.logger.warning("set \(text) refused for message \(message.idString): \(error.reason); the message is unchanged")
                return -1
            }
        }
        return answer ?? -1
    }

    /// `proceed`.
    package static func proceed(_ chain: OpaquePointer) {
        end(chain, call: "proceed", with: .proceeded)
    }

    /// `stop`: suppressed or failed, with the interceptor's reason.
    package static func stop(_ chain: OpaquePointer, verdict: ph_verdict, reason: UnsafePointer<CChar>?) {
        let reason = reason.map { String(cString: $0) }
        switch verdict {
        case PH_SUPPRESS: end(chain, call: "stop", with: .stopped(.suppressed, reason: reason))
        case PH_FAILED: end(chain, call: "stop", with: .stopped(.failed, reason: reason))
        default: end(chain, call: "stop", with: .broken("stop with the verdict \(verdict.rawValue), which is neither PH_SUPPRESS nor PH_FAILED"))
        }
    }

    /// Ends the turn as broken: the message fails, `problem` saying why
    /// (an isolated interceptor that broke the rules in its worker).
    package static func breakTurn(_ chain: OpaquePointer, problem: String) {
        end(chain, call: "stop", with: .broken(problem))
    }

    /// Ends the turn with `ending` (posting it when `intercept` returned
    /// already); a second ending breaks the turn, when the dispatch thread
    /// has not taken the first yet, and is logged either way.
    private static func end(_ chain: OpaquePointer, call: String, with ending: Ending) {
        let post = withOpenTurn(chain, call: call) { link, turn -> (Inbox<Posted>, Posted)? in
            switch turn.state {
            case .idle:
                return nil
            case .open:
                turn.state = .ended(ending)
                guard !turn.inCall, let inbox = turn.plugin?.inbox else { return nil }
                return (inbox, Posted(link: link, slot: UInt(bitPattern: turn.slot)))
            case .ended(let first):
                let problem = first.call == call ? "called \(call) twice" : "called \(first.call) and then \(call)"
                turn.plugin?.logger.warning("\(problem) for message \(turn.carried?.message.idString ?? ""): the message fails")
                if case .broken = first {} else { turn.state = .ended(.broken(problem)) }
                return nil
            }
        }
        if case let (inbox, posted)?? = post { inbox.post(posted) }
    }

    /// Runs `body` on the turn `chain` names, under its lock; nil (and a
    /// warning naming the interceptor, when its mark says which) when the
    /// chain names no turn any more.
    private static func withOpenTurn<R>(_ chain: OpaquePointer, call: String, _ body: (ChainLink, inout Turn) -> R) -> R? {
        guard let slot = Handles.chains.slot(at: UInt(bitPattern: UnsafeRawPointer(chain))) else {
            Logger(label: "pushhost").warning("\(call) through a pointer that is no chain; ignored")
            return nil
        }
        let bits = slot.pointee.load(ordering: .acquiring)
        if bits >= Handles.firstObject, let object = UnsafeRawPointer(bitPattern: bits) {
            // Never freed (see `pool`), so locking it is safe even if it moved on.
            let answer: R?? = Unmanaged<ChainLink>.fromOpaque(object)._withUnsafeGuaranteedRef { link in
                link.turn.withLock { turn in turn.slot == slot ? .some(body(link, &turn)) : nil }
            }
            if let answer { return answer }
        }
        InterceptorName.warnEnded(call: call, mark: slot.pointee.load(ordering: .acquiring))
        return nil
    }
}

extension ChainLink.Ending {
    /// The chain's call that ended the turn this way, for log lines.
    var call: String {
        switch self {
        case .proceeded: "proceed"
        case .stopped, .broken: "stop"
        }
    }
}

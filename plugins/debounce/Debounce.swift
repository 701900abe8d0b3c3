// debounce: an interceptor in Swift. It holds each message aimed at a
// target for a quiet period. A newer message for the same target arriving
// meanwhile supersedes it: the older one is suppressed at once, with the
// reason "superseded by NEWER_ID", and the newer one's quiet period starts.
// A message whose quiet period ends with nothing newer is passed on, and when
// it ends a burst of several, the log says so:
//
//   target orders: 3 messages in a burst, kept m-3
//
// Messages without a target are passed on at once.
//
// Settings: quiet_ms (the quiet period in milliseconds, default 300).
import PushHostPlugin

final class Debounce: Interceptor {
    static let name = "debounce"
    static let version = "1.0.0"
    static let summary = "Interceptor in Swift: of a burst of messages for one target, keeps the last."

    private let context: PluginContext
    private let quiet: Duration
    private let bursts = Bursts()

    init(context: PluginContext) throws {
        let setting = context.setting("quiet_ms")
        guard let milliseconds = Int(setting ?? "300"), milliseconds >= 0 else { throw BadQuiet(setting: setting ?? "") }
        self.context = context
        quiet = .milliseconds(milliseconds)
    }

    func intercept(_ chain: Chain) async -> Outcome {
        let message = chain.message
        guard let target = message.target else { return await chain.proceed() }
        switch await bursts.hold(message.id, target: target, for: quiet) {
        case .superseded(let newer):
            return .suppressed("superseded by \(newer)")
        case .quiet(let burst):
            if burst > 1 { context.log("target \(target): \(burst) messages in a burst, kept \(message.id)") }
            return await chain.proceed()
        }
    }
}

/// How the hold of a message ended.
enum Release: Sendable {
    /// A newer message for the same target arrived: the one with this id.
    case superseded(by: String)
    /// The quiet period passed with nothing newer, at the end of a burst of
    /// this many messages (this one included).
    case quiet(burst: Int)
}

/// The message held for each target. An actor, so holds and quiet ends come
/// one at a time: a held message's waiter leaves `held` as it is resumed,
/// which resumes each exactly once.
actor Bursts {
    private struct Held {
        /// Tells this hold from a later one of the same target.
        let ticket: Int
        /// How many messages the burst has had, this one included.
        let burst: Int
        let waiter: CheckedContinuation<Release, Never>
        /// Ends the hold once the quiet period passed; cancelled when superseded.
        let timer: Task<Void, Never>
    }

    private var held: [String: Held] = [:]
    private var tickets = 0

    /// Holds message `id` for `target` until `quiet` passes or a newer
    /// message for `target` supersedes it; the one held before for
    /// `target`, if any, is superseded now.
    func hold(_ id: String, target: String, for quiet: Duration) async -> Release {
        let older = held.removeValue(forKey: target)
        if let older {
            older.timer.cancel()
            older.waiter.resume(returning: .superseded(by: id))
        }
        tickets += 1
        let ticket = tickets
        return await withCheckedContinuation { waiter in
            let timer = Task {
                guard (try? await Task.sleep(for: quiet)) != nil else { return }
                release(target, ticket: ticket)
            }
            held[target] = Held(ticket: ticket, burst: (older?.burst ?? 0) + 1, waiter: waiter, timer: timer)
        }
    }

    /// The quiet period of hold `ticket` passed: the message goes on,
    /// unless a newer one superseded it meanwhile.
    private func release(_ target: String, ticket: Int) {
        guard let current = held[target], current.ticket == ticket else { return }
        held[target] = nil
        current.waiter.resume(returning: .quiet(burst: current.burst))
    }
}

struct BadQuiet: Error, CustomStringConvertible {
    let setting: String
    var description: String { "quiet_ms must be a whole number of milliseconds, not \(setting.debugDescription)" }
}

@_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Debounce.self) }

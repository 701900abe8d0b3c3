import Logging
import PushHostSystem
import Synchronization

/// An interceptor as a chain's slot remembers it once its turn ended: its
/// name, and the mark its slots keep (see ``Handles``), so that a call
/// through such a chain is logged under the plugin's name.
package struct InterceptorName: Sendable {
    let name: String
    /// A multiple of 4 below ``Handles/firstObject``, to which a slot adds
    /// how its turn was closed; 0 when too many interceptors were named to mark.
    let mark: UInt

    /// How a turn was closed, as its slot's mark says it.
    package enum Closing: UInt {
        /// By the interceptor's `proceed` or `stop`.
        case ended
        /// By the host, at the turn's `--data-timeout` deadline.
        case timedOut
        /// By the host, stopping.
        case hostStopped
    }

    /// The mark of a slot whose turn was closed so.
    func mark(_ closing: Closing) -> UInt {
        mark == 0 ? 0 : mark + closing.rawValue
    }

    /// Every name given a mark in this process, by mark / 4 - 1.
    private static let named = Mutex<[String]>([])

    /// `name`, with a mark of its own.
    static func register(_ name: String) -> InterceptorName {
        named.withLock { named in
            guard let position = named.firstIndex(of: name) else {
                let mark = UInt(named.count + 1) * 4
                guard mark < Handles.firstObject else { return InterceptorName(name: name, mark: 0) }
                named.append(name)
                return InterceptorName(name: name, mark: mark)
            }
            return InterceptorName(name: name, mark: UInt(position + 1) * 4)
        }
    }

    /// Logs a `call` through a chain whose slot holds `mark`: under the
    /// interceptor's name when the mark gives it.
    static func warnEnded(call: String, mark: UInt) {
        let position = Int(mark / 4) - 1
        let name = position >= 0 && mark < Handles.firstObject ? named.withLock { $0.indices.contains(position) ? $0[position] : nil } : nil
        guard let name else {
            return Logger(label: "pushhost").warning("\(call) through a chain that names no turn (one that ended long ago, or a stray pointer); ignored")
        }
        let when = switch Closing(rawValue: mark % 4) {
        case .timedOut: "after its --data-timeout deadline passed"
        case .hostStopped: "after the host stopped waiting for it"
        default: "after the turn already ended (proceed or stop was called before)"
        }
        Logger(label: name).warning("\(call) \(when); ignored")
    }
}

import Logging
import Synchronization

/// An interceptor as a chain's slot remembers it once its turn ended: its
/// name, and the mark its slots keep (see ``Handles``), so that a call
/// through such a chain is logged under the plugin's name.
struct InterceptorName: Sendable {
    let name: String
    /// Even, below ``Handles/firstObject``; one more for a turn whose
    /// deadline passed. 0 when too many interceptors were named to mark.
    let mark: UInt

    /// Every name given a mark in this process, by mark / 2 - 1.
    private static let named = Mutex<[String]>([])

    /// `name`, with a mark of its own.
    static func register(_ name: String) -> InterceptorName {
        named.withLock { named in
            guard let position = named.firstIndex(of: name) else {
                let mark = UInt(named.count + 1) * 2
                guard mark < Handles.firstObject else { return InterceptorName(name: name, mark: 0) }
                named.append(name)
                return InterceptorName(name: name, mark: mark)
            }
            return InterceptorName(name: name, mark: UInt(position + 1) * 2)
        }
    }

    /// Logs a `call` through a chain whose slot holds `mark`: under the
    /// interceptor's name when the mark gives it.
    static func warnEnded(call: String, mark: UInt) {
        let position = Int(mark / 2) - 1
        let name = position >= 0 && mark < Handles.firstObject ? named.withLock { $0.indices.contains(position) ? $0[position] : nil } : nil
        guard let name else {
            return Logger(label: "pushhost").warning("\(call) through a chain that names no turn (one that ended long ago, or a stray pointer); ignored")
        }
        let when = mark % 2 == 1 ? "after its --data-timeout deadline passed" : "after the turn already ended (proceed or stop was called before)"
        Logger(label: name).warning("\(call) \(when); ignored")
    }
}

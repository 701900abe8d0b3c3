import CPushHost
import PushHostPort

/// The ends of the turns of interceptors elsewhere, as they tell them:
/// through the chain's own calls, so that an edit or an ending from a
/// worker is checked as one made in the host is, and one for a turn that
/// ended already (its deadline passed) changes nothing.
extension Interceptors: TurnTaker {
    package func message(ofTurn chain: UInt) -> OpaquePointer {
        ChainLink.message(OpaquePointer(bitPattern: chain)!)
    }

    package func end(turn chain: UInt, _ ending: InterceptedEnding, reason: String?, edits: [ChainEdit]) {
        let chain = OpaquePointer(bitPattern: chain)!
        for edit in edits {
            _ = edit.path.withCString { path in
                edit.json.map { json in json.withCString { ChainLink.set(chain, path: path, json: $0) } } ?? ChainLink.set(chain, path: path, json: nil)
            }
        }
        switch ending {
        case .proceeded: ChainLink.proceed(chain)
        case .suppressed: Self.stop(chain, PH_SUPPRESS, reason)
        case .failed: Self.stop(chain, PH_FAILED, reason)
        case .broken: ChainLink.breakTurn(chain, problem: reason ?? "broke the chain's rules")
        }
    }

    package func fail(turn chain: UInt, reason: String) {
        Self.stop(OpaquePointer(bitPattern: chain)!, PH_FAILED, reason)
    }

    private static func stop(_ chain: OpaquePointer, _ verdict: ph_verdict, _ reason: String?) {
        guard let reason else { return ChainLink.stop(chain, verdict: verdict, reason: nil) }
        reason.withCString { ChainLink.stop(chain, verdict: verdict, reason: $0) }
    }
}

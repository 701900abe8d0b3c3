import CPushHost
import Synchronization
import PushHostPort

/// `ph.chain/1` in a worker: the host's chain calls (``ChainLink``), and
/// each `set` that took noted under its turn's chain, so that the host can
/// make the same edits to its copy of the message when the turn ends.
enum WorkerChains {
    /// The edits of each open turn, by its chain.
    private static let edits = Mutex<[UInt: [ChainEdit]]>([:])

    nonisolated(unsafe) static let table: UnsafePointer<ph_chain_api> = {
        let table = UnsafeMutablePointer<ph_chain_api>.allocate(capacity: 1)
        table.initialize(to: ph_chain_api(
            struct_size: UInt32(MemoryLayout<ph_chain_api>.size),
            message: { ChainLink.message($0) },
            set: { chain, path, json in
                let answer = ChainLink.set(chain, path: path, json: json)
                if answer == 0 { note(chain, ChainEdit(path: String(cString: path), json: json.map { String(cString: $0) })) }
                return answer
            },
            proceed: { ChainLink.proceed($0) },
            stop: { ChainLink.stop($0, verdict: $1, reason: $2) }
        ))
        return UnsafePointer(table)
    }()


    /// A turn begins under `chain`.
    static func begin(_ chain: OpaquePointer) {
        edits.withLock { $0[UInt(bitPattern: UnsafeRawPointer(chain))] = [] }
    }

    /// The turn under `chain` ended: the edits it made, in order.
    static func end(_ chain: UInt) -> [ChainEdit] {
        edits.withLock { $0.removeValue(forKey: chain) } ?? []
    }

    private static func note(_ chain: OpaquePointer, _ edit: ChainEdit) {
        edits.withLock { edits in
            let key = UInt(bitPattern: UnsafeRawPointer(chain))
            // A set after the turn's end changed nothing (ChainLink said so).
            if edits[key] != nil { edits[key]!.append(edit) }
        }
    }
}

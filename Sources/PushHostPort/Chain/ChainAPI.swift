import CPushHost

/// `ph.chain/1`: what an interceptor may do with its chain (see ``ChainLink``).
package enum ChainAPI {
    package nonisolated(unsafe) static let table: UnsafePointer<ph_chain_api> = {
        let table = UnsafeMutablePointer<ph_chain_api>.allocate(capacity: 1)
        table.initialize(to: ph_chain_api(
            struct_size: UInt32(MemoryLayout<ph_chain_api>.size),
            message: { ChainLink.message($0) },
            set: { ChainLink.set($0, path: $1, json: $2) },
            proceed: { ChainLink.proceed($0) },
            stop: { ChainLink.stop($0, verdict: $1, reason: $2) }
        ))
        return UnsafePointer(table)
    }()
}

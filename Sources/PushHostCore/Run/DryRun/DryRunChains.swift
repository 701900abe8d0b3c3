import CPushHost
import PushHostSystem

/// `ph.chain/1` in a dry run (``DryRun``): an interceptor may ask for it in
/// `create`, and refuses to be created without it, but no message flows,
/// so no chain is ever open. Each call answers as a run's table answers
/// for a chain that is not open: `message` an empty message, `set` -1,
/// `proceed` and `stop` nothing.
enum DryRunChains {
    nonisolated(unsafe) static let table: UnsafePointer<ph_chain_api> = {
        let table = UnsafeMutablePointer<ph_chain_api>.allocate(capacity: 1)
        table.initialize(to: ph_chain_api(
            struct_size: UInt32(MemoryLayout<ph_chain_api>.size),
            message: { _ in OpaquePointer(Handles.none) },
            set: { _, _, _ in -1 },
            proceed: { _ in },
            stop: { _, _, _ in }
        ))
        return UnsafePointer(table)
    }()
}

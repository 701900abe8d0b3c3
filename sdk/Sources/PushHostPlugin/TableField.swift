/// Whether `table`, one the host built that starts with its `struct_size`,
/// covers the function pointer at `field`: the header's `PH_HAS_FIELD`, for
/// the SDK's reads of `ph_host`, `ph_intake`, `ph_chain_api` and `ph_state`.
func covers<Table>(_ table: UnsafePointer<Table>, _ field: PartialKeyPath<Table>) -> Bool {
    let end = MemoryLayout<Table>.offset(of: field)! + MemoryLayout<UnsafeRawPointer>.size
    return Int(UnsafeRawPointer(table).load(as: UInt32.self)) >= end
}

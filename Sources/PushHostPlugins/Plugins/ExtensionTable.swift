/// A table a plugin offers for an extension (`ph_interceptor`,
/// `ph_source`), read as the header's growth rule says: it starts with
/// `struct_size`, and a field is read only when that covers it, so that a
/// plugin built against an older header (a smaller table) or a newer one (a
/// larger table) is read alike.
package struct ExtensionTable<Table> {
    private let base: UnsafeRawPointer
    /// The table's `struct_size`, as the plugin built it.
    package let size: Int

    /// The table at `base`, which starts with its `struct_size`.
    package init(_ base: UnsafeRawPointer) {
        self.base = base
        size = Int(base.load(as: UInt32.self))
    }

    /// The function at `field` (one the header says is never NULL): nil
    /// when the table does not cover it, or it is NULL all the same.
    package func function<Function>(_ field: KeyPath<Table, Function>) -> Function? {
        covered(field, as: Function?.self) ?? nil
    }

    /// The function at `field` (one that may be NULL): nil when the table
    /// does not cover it, or it is NULL.
    package func function<Function>(_ field: KeyPath<Table, Function?>) -> Function? {
        covered(field, as: Function?.self) ?? nil
    }

    /// The value at `field` as a `Value`, nil when the table does not cover it.
    private func covered<Value>(_ field: PartialKeyPath<Table>, as type: Value.Type) -> Value? {
        let offset = MemoryLayout<Table>.offset(of: field)!
        guard size >= offset + MemoryLayout<Value>.size else { return nil }
        return base.load(fromByteOffset: offset, as: Value.self)
    }
}

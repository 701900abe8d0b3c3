import PushHostJSON

/// An interceptor's `set`: the message rewritten in place, under the same
/// handle, so that a later interceptor and every plugin read the edit.
extension Message {
    /// Applies `edit` to the normalized message: it is written with the
    /// edit, parsed into storage of the message's own, and read from now on
    /// (`message_json` is built again). Strings handed out before stay valid.
    ///
    /// Called from any thread while the host leaves the message alone (an
    /// interceptor holds it); the swap happens under the lock the accessors
    /// take, so a reader on another thread sees the message before or after.
    ///
    /// - Throws: when the path crosses a member that is not an object, or
    ///   the edited message nests too deep; the message is then unchanged.
    package func apply(_ edit: MessageEdit) throws(MessageEdit.Refusal) {
        var current: [UInt8] = []
        appendNormalizedJSON(to: &current)
        var reader = JSONReader(maxDepth: Self.normalizedMaxDepth)
        var edited: [UInt8] = []
        try current.withUnsafeBytes { bytes in
            // Written by appendNormalizedJSON: valid JSON.
            let document = try! reader.parse(bytes)
            return Result { () throws(MessageEdit.Refusal) in try edit.apply(to: document.root, into: &edited) }
        }.get()
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: edited.count, alignment: 8)
        edited.withUnsafeBytes { storage.copyMemory(from: $0) }
        let tokens = UnsafeMutableBufferPointer<JSONToken>.allocate(capacity: edited.count)
        let document: JSONDocument
        do {
            document = try reader.parse(UnsafeRawBufferPointer(storage), into: tokens.baseAddress!)
        } catch {
            storage.deallocate()
            tokens.deallocate()
            throw MessageEdit.Refusal(reason: "the edited message would be \(error.reason)")
        }
        replaceStorage(with: (storage, tokens), document: document)
    }
}

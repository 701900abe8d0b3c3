import PushHostJSON
import PushHostRecords

/// Loading an ntfy message whose record was rewritten (see ``NtfyRecord``).
extension Message {
    /// Points the message at `record`, the rewrite of an ntfy record (its
    /// base64 `message` decoded), parsed into storage of the message's own:
    /// the rewrite is gone when this returns, the message reads a copy.
    package func load(rewritten record: [UInt8], source: RecordSource, platform: Platform?, targetKey: UnsafeRawBufferPointer) {
        var reader = JSONReader()
        record.withUnsafeBytes { bytes in
            // Written by NtfyRecord from a valid record: valid JSON.
            let document = try! reader.parse(bytes)
            load(document, members: RootMembers(document.root), source: source, platform: platform, targetKey: targetKey)
            detach(locked: true)
        }
    }
}

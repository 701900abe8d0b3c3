@testable import PushHostPipeline
@testable import PushHostSystem
@testable import PushHostJSON
@testable import PushHostMessage

/// Runs `body` with a message loaded from `payload` as standard input line 1
/// (parsed, its telling root members found, borrowing the input and the
/// tape), while those buffers are alive.
func withLoadedMessage<R>(
    _ payload: String, platform: Platform? = nil, targetKey: String = "rx_gcm_key_target", _ body: (Message) throws -> R
) throws -> R {
    let input = Array(payload.utf8)
    let key = Array(targetKey.utf8)
    return try input.withUnsafeBytes { bytes in
        var reader = JSONReader()
        let document = try reader.parse(bytes)
        let message = Message()
        defer { message.reset() }
        key.withUnsafeBytes { key in
            message.load(document, members: RootMembers(document.root), source: .stdin(line: 1), platform: platform, targetKey: key)
        }
        return try body(message)
    }
}

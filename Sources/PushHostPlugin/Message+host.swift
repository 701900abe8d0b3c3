import CPushHost

extension Message {
    /// Copies what a plugin may read of `message` while the host lends it.
    init(copying message: OpaquePointer, from host: UnsafePointer<ph_host>) {
        let table = host.pointee
        func text(_ path: String) -> [UInt8]? {
            table.message_get(message, path).map { Array(String(cString: $0).utf8) }
        }
        var length = 0
        let json = table.message_json(message, &length)
        self.init(
            id: String(cString: table.message_id(message)),
            target: table.message_target(message).map { String(cString: $0) },
            data: text("data").map(CompactJSON.members(of:)) ?? [:],
            notification: text("notification").map(CompactJSON.members(of:)) ?? [:],
            json: String(decoding: UnsafeRawBufferPointer(start: json, count: length), as: UTF8.self)
        )
    }
}

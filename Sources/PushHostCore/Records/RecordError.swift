/// Why a record was rejected: a plain reason, and the byte offset in the
/// record when the JSON itself is at fault.
struct RecordError: Error {
    /// The host event the record meant, when it was one.
    var event: HostEvent.Kind?
    var offset: Int?
    var reason: String

    init(event: HostEvent.Kind? = nil, offset: Int? = nil, reason: String) {
        self.event = event
        self.offset = offset
        self.reason = reason
    }

    /// A record that is not valid JSON.
    init(_ error: JSONError) {
        self.init(offset: error.offset, reason: error.reason)
    }

    /// A record longer than `--max-bytes`.
    static func tooLong(_ maxBytes: Int) -> RecordError {
        RecordError(offset: maxBytes, reason: "longer than --max-bytes \(maxBytes)")
    }

    /// The reason as the report and the spool's `.error.json` give it: `byte 45: trailing comma`.
    var text: String {
        offset.map { "byte \($0): \(reason)" } ?? reason
    }
}

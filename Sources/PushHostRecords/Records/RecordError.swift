import PushHostJSON

/// Why a record was rejected: a plain reason, and the byte offset in the
/// record when the JSON itself is at fault.
package struct RecordError: Error {
    /// The host event the record meant, when it was one.
    package var event: HostEvent.Kind?
    package var offset: Int?
    package var reason: String

    package init(event: HostEvent.Kind? = nil, offset: Int? = nil, reason: String) {
        self.event = event
        self.offset = offset
        self.reason = reason
    }

    /// A record that is not valid JSON.
    package init(_ error: JSONError) {
        self.init(offset: error.offset, reason: error.reason)
    }

    /// A record longer than `--max-bytes`.
    package static func tooLong(_ maxBytes: Int) -> RecordError {
        RecordError(offset: maxBytes, reason: "longer than --max-bytes \(maxBytes)")
    }

    /// The reason as the report and the spool's `.error.json` give it: `byte 45: trailing comma`.
    package var text: String {
        offset.map { "byte \($0): \(reason)" } ?? reason
    }
}

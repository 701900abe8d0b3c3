import PushHostJSON

/// The members of a record's root object that decide what the record is:
/// a host event (`pushhost`), and the keys that tell the payload shapes
/// apart and hold GCM's, APNs' and ntfy's fields.
///
/// One pass over the root finds them all; for a repeated key the first one
/// counts, as ``JSONValue/member(named:)-(UnsafeRawBufferPointer)`` finds it.
/// Each is the tape index of the member's value, or -1.
@usableFromInline package struct RootMembers {
    @usableFromInline package var pushhost: Int32 = -1
    var message: Int32 = -1
    var aps: Int32 = -1
    var data: Int32 = -1
    var notification: Int32 = -1
    var messageID: Int32 = -1
    var priority: Int32 = -1
    var contentAvailable: Int32 = -1
    var to: Int32 = -1
    var collapseKey: Int32 = -1
    /// GCM's `time_to_live`, and the `apns-expiration` an APNs record may carry beside `aps`.
    var timeToLive: Int32 = -1
    var apnsExpiration: Int32 = -1
    /// ntfy's `event`; the other members that make an ntfy record are
    /// looked for only when there is one (see ``isNtfy(_:)``).
    @usableFromInline var event: Int32 = -1

    /// Scans the members of `root`, an object.
    @usableFromInline package init(_ root: JSONValue) {
        root.forEachMember { key, value in note(key, value: value) }
    }

    /// Records `value` under the field whose key is `key`, unless one was found before.
    private mutating func note(_ key: UnsafeRawBufferPointer, value: Int32) {
        func claim(_ field: inout Int32, _ name: StaticString) {
            if field < 0 && key.equals(name) { field = value }
        }
        switch key.count {
        case 2: claim(&to, "to")
        case 3: claim(&aps, "aps")
        case 4: claim(&data, "data")
        case 5: claim(&event, "event")
        case 7: claim(&message, "message")
        case 8:
            claim(&pushhost, "pushhost")
            claim(&priority, "priority")
        case 10: claim(&messageID, "message_id")
        case 12:
            claim(&notification, "notification")
            claim(&collapseKey, "collapse_key")
            claim(&timeToLive, "time_to_live")
        case 15: claim(&apnsExpiration, "apns-expiration")
        case 17: claim(&contentAvailable, "content_available")
        default: break
        }
    }

    /// Whether `root`, the object these are the members of, is an ntfy
    /// record: a string `event`, a string `topic`, a number `time` and a
    /// string `id` (see ``NtfyRecord``). Records of other shapes, which
    /// have no `event`, pay one comparison.
    @inline(__always)
    @inlinable package func isNtfy(_ root: JSONValue) -> Bool {
        event >= 0 && Self.hasNtfyMembers(root, event: event)
    }

    /// The rest of ``isNtfy(_:)``, for a record with an `event` at tape index `event`.
    @usableFromInline static func hasNtfyMembers(_ root: JSONValue, event: Int32) -> Bool {
        root.at(event).kind == .string && root.member(named: "topic", kind: .string) != nil
            && root.member(named: "time", kind: .number) != nil && root.member(named: "id", kind: .string) != nil
    }
}

/// Where each field of the normalized message comes from in the payload:
/// tape indices into the parsed record, worked out once per message without
/// copying anything.
struct MessageLayout {
    /// One source of members of a normalized object (`data`, `notification`).
    enum Part {
        /// Every member of the object at this tape index, but the one named `except`.
        case object(Int32, except: StaticString?)
        /// One member, named here, whose value is at this tape index.
        case member(StaticString, Int32)
    }

    var format = MessageFormat.bare
    /// The payload's own id, or -1: the host makes one.
    var id: Int32 = -1
    /// The priority the payload states, if it does.
    var statedPriority: Priority?
    var contentAvailable = false
    var topic: Int32 = -1
    /// GCM's `to` names a topic as `/topics/NAME`; the prefix is not part of it.
    var topicHasPrefix = false
    var collapseKey: Int32 = -1
    /// Sources of `data` members, later ones winning.
    var data: [Part] = []
    /// Sources of `notification` members, later ones winning; none: no notification.
    var notification: [Part] = []

    /// The stated priority, else high for a message with a notification (as
    /// FCM and APNs send those) and normal for a data-only one.
    var priority: Priority {
        statedPriority ?? (notification.isEmpty ? .normal : .high)
    }

    /// Empties the layout for the next message, keeping capacity.
    mutating func reset() {
        format = .bare
        id = -1
        statedPriority = nil
        contentAvailable = false
        topic = -1
        topicHasPrefix = false
        collapseKey = -1
        data.removeAll(keepingCapacity: true)
        notification.removeAll(keepingCapacity: true)
    }
}

/// The shape a push payload came in.
enum MessageFormat: String {
    case gcm
    case fcmV1 = "fcm-v1"
    case apns
    case bare
}

enum Priority: String {
    case high
    case normal
}

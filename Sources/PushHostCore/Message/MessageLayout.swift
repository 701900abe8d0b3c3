/// Where each field of the normalized message comes from in the payload:
/// tape indices into the parsed record, worked out once per message without
/// copying anything.
struct MessageLayout {
    /// One source of members of a normalized object (`data`, `notification`).
    enum Part {
        /// Every member of the object at this tape index; with `withoutAPS`,
        /// all but its `aps` member (an APNs payload's block for the system).
        case object(Int32, withoutAPS: Bool)
        /// One field of an APNs `aps` block, whose value is at this tape index.
        case member(APSField, Int32)
    }

    /// The fields an APNs `aps` block adds to the notification, by the
    /// names the normalized notification gives them.
    enum APSField: UInt8 {
        case body
        case badge
        case sound
        case category
        case threadID

        var name: StaticString {
            switch self {
            case .body: "body"
            case .badge: "badge"
            case .sound: "sound"
            case .category: "category"
            case .threadID: "thread-id"
            }
        }
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
    var data = Parts()
    /// Sources of `notification` members, later ones winning; none: no notification.
    var notification = Parts()

    /// The stated priority, else high for a message with a notification (as
    /// FCM and APNs send those) and normal for a data-only one.
    var priority: Priority {
        statedPriority ?? (notification.isEmpty ? .normal : .high)
    }

}

extension MessageLayout {
    /// The sources of one normalized object, in order, held in place: no
    /// payload shape needs more than six (an APNs `aps` block inside FCM v1:
    /// the common notification, `alert`, and four single members).
    struct Parts: RandomAccessCollection {
        static let capacity = 6
        private var storage = InlineArray<6, Part>(repeating: .member(.body, -1))
        private(set) var endIndex = 0

        var startIndex: Int { 0 }

        subscript(position: Int) -> Part { storage[position] }

        mutating func append(_ part: Part) {
            storage[endIndex] = part
            endIndex += 1
        }

        /// The tape index of the one object these parts are, whole; -1 when
        /// they are several, a single member, or an object less its `aps`.
        var singleObject: Int32 {
            guard endIndex == 1, case .object(let index, false) = storage[0] else { return -1 }
            return index
        }
    }
}

/// The shape a push payload came in.
enum MessageFormat: String {
    case gcm
    case fcmV1 = "fcm-v1"
    case apns
    case bare

    /// `rawValue`, for handing out without a `String`.
    var word: StaticString {
        switch self {
        case .gcm: "gcm"
        case .fcmV1: "fcm-v1"
        case .apns: "apns"
        case .bare: "bare"
        }
    }
}

enum Priority: String {
    case high
    case normal

    /// `rawValue`, for handing out without a `String`.
    var word: StaticString {
        switch self {
        case .high: "high"
        case .normal: "normal"
        }
    }
}

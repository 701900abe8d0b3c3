import PushHostJSON

/// Where each field of the normalized message comes from in the payload:
/// tape indices into the parsed record, worked out once per message without
/// copying anything.
@usableFromInline package struct MessageLayout {
    /// One source of members of a normalized object (`data`, `notification`).
    package enum Part {
        /// Every member of the object at this tape index; with `withoutAPS`,
        /// all but its `aps` member (an APNs payload's block for the system).
        case object(Int32, withoutAPS: Bool)
        /// One field whose value is at this tape index of the record: a
        /// member of an APNs `aps` block, or one the payload states under
        /// another key or in another place (`imageUrl` in FCM v1 android
        /// data for `image`).
        case member(Field, Int32)
        /// One field whose value the record does not hold: the value at
        /// this tape index of ``LayoutConstants/document`` (the `style`).
        case constant(Field, Int32)
    }

    /// The fields that parts of the notification add one by one, by the
    /// names the normalized notification gives them.
    package enum Field: UInt8 {
        case title
        case body
        case badge
        case sound
        case category
        case threadID
        case image
        case icon
        case click
        case actions
        case style

        var name: StaticString {
            switch self {
            case .title: "title"
            case .body: "body"
            case .badge: "badge"
            case .sound: "sound"
            case .category: "category"
            case .threadID: "thread-id"
            case .image: "image"
            case .icon: "icon"
            case .click: "click"
            case .actions: "actions"
            case .style: "style"
            }
        }
    }

    var format = MessageFormat.bare
    /// The payload's own id, or -1: the host makes one.
    package var id: Int32 = -1
    /// The priority the payload states, if it does; normal for a message
    /// whose notification comes from its data alone (FCM sends it as data).
    var statedPriority: Priority?
    var contentAvailable = false
    var topic: Int32 = -1
    /// GCM's `to` names a topic as `/topics/NAME`; the prefix is not part of it.
    var topicHasPrefix = false
    var collapseKey: Int32 = -1
    /// Sources of `data` members, later ones winning: at most two (the
    /// common data and an APNs payload's own keys, in FCM v1).
    var data = Parts<2>()
    /// Sources of `notification` members, later ones winning; none: no notification.
    package var notification = Parts<10>()
    /// FCM v1's `apns.fcm_options.image` (with `--platform apns`), or -1.
    var platformImage: Int32 = -1
    /// FCM v1's `webpush.fcm_options.link` (with `--platform webpush`), or -1.
    var platformLink: Int32 = -1
    /// Whether `data` is FCM v1 android data (`--platform android`), whose
    /// `title`, `body`, `imageUrl`, `iconUrl`, `type` the notification reads.
    var isAndroidData = false
    /// Where the payload states its lifetime, or -1, and how (see ``Lifetime``).
    var lifetime: Int32 = -1
    var lifetimeForm = Lifetime.Form.seconds

    /// The stated priority, else high for a message with a notification (as
    /// FCM and APNs send those) and normal for a data-only one.
    var priority: Priority {
        statedPriority ?? (notification.isEmpty ? .normal : .high)
    }

}

extension MessageLayout {
    /// The sources of one normalized object, in order, held in place, at
    /// most `capacity`. The notification needs ten at most: an APNs `aps`
    /// block inside FCM v1 gives six (the common notification, `alert`,
    /// four single members), the fields stated elsewhere three (`image`,
    /// `click`, `actions`), and the `style` one; FCM v1 android, two objects,
    /// six fields stated elsewhere and the style.
    package struct Parts<let capacity: Int>: RandomAccessCollection {
        private var storage = InlineArray<capacity, Part>(repeating: .member(.body, -1))
        package private(set) var endIndex = 0

        package var startIndex: Int { 0 }

        package subscript(position: Int) -> Part { storage[position] }

        mutating func append(_ part: Part) {
            storage[endIndex] = part
            endIndex += 1
        }

        /// Appends every part of `other`, in order.
        mutating func append<let other: Int>(contentsOf parts: Parts<other>) {
            for part in parts { append(part) }
        }

        /// The tape index of the one object these parts are, whole; -1 when
        /// they are several, a single member, or an object less its `aps`.
        var singleObject: Int32 {
            guard endIndex == 1, case .object(let index, false) = storage[0] else { return -1 }
            return index
        }

        /// The member `key` of the merged parts, the last part that has it
        /// winning; `root` is the record the tape indices point into.
        func member(_ key: UnsafeRawBufferPointer, in root: JSONValue) -> JSONValue? {
            for part in reversed() {
                switch part {
                case .object(let index, let withoutAPS):
                    if withoutAPS && key.equals("aps") { continue }
                    if let value = root.at(index).member(named: key) { return value }
                case .member(let field, let index):
                    if key.equals(field.name) { return root.at(index) }
                case .constant(let field, let index):
                    if key.equals(field.name) { return LayoutConstants.value(index) }
                }
            }
            return nil
        }

        /// ``member(_:in:)`` by a fixed name.
        package func member(_ key: StaticString, in root: JSONValue) -> JSONValue? {
            member(UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount), in: root)
        }
    }
}

/// The shape a push payload came in.
package enum MessageFormat: String {
    case gcm
    case fcmV1 = "fcm-v1"
    case apns
    case ntfy
    case bare

    /// `rawValue`, for handing out without a `String`.
    var word: StaticString {
        switch self {
        case .gcm: "gcm"
        case .fcmV1: "fcm-v1"
        case .apns: "apns"
        case .ntfy: "ntfy"
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

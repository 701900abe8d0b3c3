#if canImport(Glibc)
import Glibc
#endif

/// The members of a message's `data` that the host reads: the target, and
/// what a rich notification takes from data (`actions`, `click`; and in FCM
/// v1 android data `title`, `body`, `imageUrl`, `iconUrl`, `type`).
///
/// One pass over the data's objects finds them all, so a message that has
/// none of them pays for one look at each key's length. As
/// ``MessageLayout/Parts/member(_:in:)`` finds them, a later part wins and,
/// within one object, the first member of a repeated key. Each is a tape
/// index, or -1.
struct DataFields {
    /// The member under the target key, of any kind.
    var target: Int32 = -1
    var actions: Int32 = -1
    var click: Int32 = -1
    var title: Int32 = -1
    var body: Int32 = -1
    var imageURL: Int32 = -1
    var iconURL: Int32 = -1
    var type: Int32 = -1

    /// Scans `parts` (objects of `root`'s record), looking for `targetKey`,
    /// and with `android` for the android data keys too.
    init(_ parts: MessageLayout.Parts<2>, in root: JSONValue, targetKey: UnsafeRawBufferPointer, android: Bool) {
        // Later parts first, each field taken where first found.
        for part in parts.reversed() {
            guard case .object(let index, let withoutAPS) = part else { continue }
            let object = root.at(index)
            var position = object.index + 1
            let end = object.subtreeEnd
            while position < end {
                let key = JSONValue(tape: root.tape, input: root.input, index: position)
                let value = Int32(truncatingIfNeeded: position + 1)
                if key.isEscaped {
                    key.textBytes.withUnsafeBytes { note($0, value, targetKey, android, withoutAPS) }
                } else {
                    note(key.rawBytes, value, targetKey, android, withoutAPS)
                }
                position = Int(root.tape[position + 1].next)
            }
        }
    }

    /// Whether these fields may make a notification of their own: actions,
    /// or a field of android data that the notification shows.
    var mayMakeNotification: Bool {
        // Some sign bit is clear: some field was found.
        (actions & title & body & imageURL & iconURL) >= 0
    }

    /// Records `value` under the field whose key is `key`, unless one was found before.
    @inline(__always)
    private mutating func note(
        _ key: UnsafeRawBufferPointer, _ value: Int32, _ targetKey: UnsafeRawBufferPointer, _ android: Bool, _ withoutAPS: Bool
    ) {
        if target < 0 && key.count == targetKey.count
            && (key.count == 0 || memcmp(key.baseAddress!, targetKey.baseAddress!, key.count) == 0)
            && !(withoutAPS && key.equals("aps")) {
            target = value
        }
        func claim(_ field: inout Int32, _ name: StaticString) {
            if field < 0 && key.equals(name) { field = value }
        }
        switch key.count {
        case 4 where android:
            claim(&body, "body")
            claim(&type, "type")
        case 5:
            claim(&click, "click")
            if android { claim(&title, "title") }
        case 7:
            claim(&actions, "actions")
            if android { claim(&iconURL, "iconUrl") }
        case 8 where android:
            claim(&imageURL, "imageUrl")
        default: break
        }
    }
}

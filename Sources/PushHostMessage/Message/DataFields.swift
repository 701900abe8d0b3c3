#if canImport(Glibc)
import Glibc
#endif
import PushHostJSON

/// The members of a message's `data` that every message is looked at for:
/// the target, and what a rich notification takes from any data (`actions`,
/// `click`). (FCM v1 android data's other fields are looked up only in
/// such messages.)
///
/// One pass over the data's objects finds them all, so a message that has
/// neither pays for one look at each key's length. As
/// ``MessageLayout/Parts/member(_:in:)`` finds them, a later part wins and,
/// within one object, the first member of a repeated key. Each is a tape
/// index, or -1.
struct DataFields {
    /// The member under the target key, of any kind.
    var target: Int32 = -1
    var actions: Int32 = -1
    var click: Int32 = -1

    /// Scans `parts` (objects of `root`'s record), looking for `targetKey` too.
    init(_ parts: MessageLayout.Parts<2>, in root: JSONValue, targetKey: UnsafeRawBufferPointer) {
        // Later parts first, each field taken where first found.
        for part in parts.reversed() {
            guard case .object(let index, let withoutAPS) = part else { continue }
            root.at(index).forEachMember { key, value in note(key, value, targetKey, withoutAPS) }
        }
    }

    /// Records `value` under the field whose key is `key`, unless one was found before.
    @inline(__always)
    private mutating func note(_ key: UnsafeRawBufferPointer, _ value: Int32, _ targetKey: UnsafeRawBufferPointer, _ withoutAPS: Bool) {
        if target < 0 && key.count == targetKey.count
            && (key.count == 0 || memcmp(key.baseAddress!, targetKey.baseAddress!, key.count) == 0)
            && !(withoutAPS && key.equals("aps")) {
            target = value
        }
        switch key.count {
        case 5: if click < 0 && key.equals("click") { click = value }
        case 7: if actions < 0 && key.equals("actions") { actions = value }
        default: break
        }
    }
}

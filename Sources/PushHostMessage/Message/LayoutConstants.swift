import PushHostJSON

/// Values the normalized message shows that no record holds (the words of
/// `notification.style`), as one JSON document parsed once and never freed,
/// so that a layout can point at them the way it points into the record:
///
/// ```
/// ["default","image","bigtext"]
///   tape index 1: "default", 2: "image", 3: "bigtext"
/// ```
enum LayoutConstants {
    /// The document; its input is the static text, its tape is never freed.
    nonisolated(unsafe) static let document: JSONDocument = {
        let text: StaticString = #"["default","image","bigtext"]"#
        let input = UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        let tape = UnsafeMutablePointer<JSONToken>.allocate(capacity: input.count)
        // A fixed, valid text: parsing cannot fail.
        return try! JSONReader().parse(input, into: tape)
    }()

    /// The value at `index` of the document.
    static func value(_ index: Int32) -> JSONValue {
        document.root.at(index)
    }
}

/// The three values of `notification.style`, by their tape index in
/// ``LayoutConstants/document``.
enum NotificationStyle: Int32 {
    case plain = 1
    case image = 2
    case bigText = 3

    /// The style `value` names: `default`, `image`, `bigtext` in any case,
    /// and Android's `big_picture`, `bigpicture` (image) and `big_text`
    /// (bigtext); nil for any other value.
    init?(naming value: JSONValue) {
        guard value.kind == .string else { return nil }
        if value.isString("default", ignoringCase: true) {
            self = .plain
        } else if value.isString("image", ignoringCase: true) || value.isString("big_picture", ignoringCase: true)
            || value.isString("bigpicture", ignoringCase: true) {
            self = .image
        } else if value.isString("bigtext", ignoringCase: true) || value.isString("big_text", ignoringCase: true) {
            self = .bigText
        } else {
            return nil
        }
    }

    /// The part that gives the notification this style.
    var part: MessageLayout.Part {
        .constant(.style, rawValue)
    }
}

import PushHostJSON

/// Reading a normalized message back: the layout of a document that is a
/// message as `normalizedJSON()` writes it.
extension MessageLayout {
    /// The layout of the normalized message `root`:
    /// `{"id","target","format","priority","content_available","notification","data","topic","collapse_key","source"}`,
    /// each field where it stands (the topic without any `/topics/`, the
    /// notification and data whole, the notification's style included).
    init(normalized root: JSONValue) {
        let format = root.member(named: "format", kind: .string)
        self.format = [MessageFormat.gcm, .fcmV1, .apns, .ntfy].first { format?.isString($0.word) == true } ?? .bare
        id = root.stringIndex("id")
        statedPriority = root.member(named: "priority", kind: .string).map { $0.isString("high") ? .high : .normal }
        contentAvailable = root.member(named: "content_available", kind: .true) != nil
        topic = root.stringIndex("topic")
        collapseKey = root.stringIndex("collapse_key")
        if let object = root.member(named: "notification", kind: .object) {
            notification.append(.object(object.tapeIndex, withoutAPS: false))
        }
        if let object = root.member(named: "data", kind: .object) {
            data.append(.object(object.tapeIndex, withoutAPS: false))
        }
    }
}

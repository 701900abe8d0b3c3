import PushHostJSON

/// Where an ntfy message (see ``NtfyRecord``) keeps its fields.
extension MessageLayout {
    /// An ntfy message, `root`: the id is its `id`, the topic its `topic`,
    /// data the whole record; the notification's `title`, `body` (ntfy's
    /// `message`), `icon`, and `image` when the `attachment` is an image
    /// (its `type` starts with `image/`: its `url`). `click` and `actions`
    /// stand at the top of the record, that is in data, where every shape's
    /// notification finds them (``addRichFields(_:in:)``). `priority` 1 or
    /// 2 is normal; 3 (ntfy's default), 4, 5 or none is high.
    ///
    /// ```
    /// {"id":"sPs7","time":1700000001,"event":"message","topic":"alerts","title":"Door",
    ///  "message":"Back entrance open","priority":2,"attachment":{"type":"image/jpeg","url":"https://x/cam.jpg"}}
    ///   ->  id sPs7, topic alerts, priority normal,
    ///       notification {"title":"Door","body":"Back entrance open","image":"https://x/cam.jpg","style":"image"}
    /// ```
    mutating func readNtfy(_ root: JSONValue, _ members: RootMembers) {
        format = .ntfy
        id = root.stringIndex("id")
        topic = root.stringIndex("topic")
        data.append(.object(root.tapeIndex, withoutAPS: false))
        for (field, name): (Field, StaticString) in [(.title, "title"), (.body, "message"), (.icon, "icon")] {
            let index = root.stringIndex(name)
            if index >= 0 { notification.append(.member(field, index)) }
        }
        if let attachment = root.member(named: "attachment", kind: .object),
            let type = attachment.member(named: "type", kind: .string), type.textBytes.starts(with: "image/".utf8) {
            let url = attachment.stringIndex("url")
            if url >= 0 { notification.append(.member(.image, url)) }
        }
        let priority = members.priority < 0 ? nil : root.at(members.priority)
        let isLow = priority.map { $0.kind == .number && ($0.rawBytes.equals("1") || $0.rawBytes.equals("2")) } ?? false
        statedPriority = isLow ? .normal : .high
        lifetime = root.member(named: "expires", kind: .number)?.tapeIndex ?? -1
        lifetimeForm = .epoch
    }
}

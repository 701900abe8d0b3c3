import PushHostJSON

/// What a message writes in place of the actions its record states when
/// they are not in normalized form (see ``NotificationActions``).
enum ActionsRewrite {
    /// This normalized array, as compact JSON.
    case replace([UInt8])
    /// None: the `actions` the notification states are left out.
    case remove
}

/// The rich notification (docs/running.md, rich notifications): `actions`, `image`, `icon`,
/// `click` and `style`, from wherever the payload's shape states them.
extension MessageLayout {
    /// Completes the notification with the fields the payload states
    /// outside it or under other names (in `data`: `fields`, and android
    /// data's `title`, `body`, `imageUrl`, `iconUrl`, `type`), placed
    /// before the notification's own parts so that those win, and with its
    /// `style`, last. Data-only messages stay without a notification unless
    /// data's actions or android data make one.
    ///
    /// - Returns: how to rewrite the actions when the ones the message shows
    ///   are not in normalized form; nil when they are, or there are none.
    mutating func addRichFields(_ fields: DataFields, in root: JSONValue) -> ActionsRewrite? {
        let stated = notification
        var rewrite: ActionsRewrite?
        var extra = Parts<10>()
        /// The index when it is that of a string, else -1.
        func string(_ index: Int32) -> Int32 {
            index >= 0 && root.at(index).kind == .string ? index : -1
        }
        func add(_ field: Field, _ index: Int32) {
            if index >= 0 { extra.append(.member(field, index)) }
        }

        /// The member `key` of data when it is a string, else -1.
        func dataString(_ key: StaticString) -> Int32 {
            guard let value = data.member(key, in: root), value.kind == .string else { return -1 }
            return value.tapeIndex
        }

        // Fields of android data, each only where the notification lacks it.
        if isAndroidData {
            add(.title, dataString("title"))
            add(.body, dataString("body"))
            add(.image, dataString("imageUrl"))
            add(.icon, dataString("iconUrl"))
        }

        // The notification's own actions, else data's.
        if !stated.isEmpty, let own = stated.member("actions", in: root) {
            if !NotificationActions.isNormalized(own) {
                let fromData = fields.actions >= 0 ? NotificationActions.normalized(root.at(fields.actions)) : nil
                if let bytes = NotificationActions.normalized(own) ?? fromData.flatMap({ $0.count > 2 ? $0 : nil }) {
                    rewrite = .replace(bytes)
                } else {
                    rewrite = .remove
                }
            }
        } else if fields.actions >= 0 {
            let value = root.at(fields.actions)
            if NotificationActions.isNormalized(value) {
                if value.count > 0 { add(.actions, fields.actions) }
            } else if let bytes = NotificationActions.normalized(value), bytes.count > 2 {
                // Shown in place of the value until the message is rewritten.
                add(.actions, fields.actions)
                rewrite = .replace(bytes)
            }
        }
        guard !stated.isEmpty || !extra.isEmpty else { return nil }
        // A notification made from data alone is still sent as a data message.
        if stated.isEmpty && statedPriority == nil { statedPriority = .normal }

        add(.image, platformImage)
        var click: Int32 = stated.member("click_action", in: root).map { $0.kind == .string ? $0.tapeIndex : -1 } ?? -1
        if click < 0 { click = platformLink }
        if click < 0 { click = string(fields.click) }
        add(.click, click)

        var merged = extra
        merged.append(contentsOf: stated)
        let style = stated.member("style", in: root).flatMap(NotificationStyle.init(naming:))
            ?? (isAndroidData ? data.member("type", in: root).flatMap(NotificationStyle.init(naming:)) : nil)
            ?? (merged.member("image", in: root).map { $0.kind != .null } == true ? .image : .plain)
        merged.append(style.part)
        notification = merged
        return rewrite
    }
}

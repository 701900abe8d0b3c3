import PushHostJSON

/// Telling the payload shapes apart, and where each keeps its fields.
extension MessageLayout {
    /// The layout of the push payload `root`, an object whose telling
    /// members are `members`: ntfy (`event`, `topic`, `time`, `id`), FCM
    /// HTTP v1 (`message`), APNs (`aps`), GCM / FCM legacy (`data` or
    /// `notification`), or else bare data.
    init(root: JSONValue, members: RootMembers, platform: Platform?) {
        if members.isNtfy(root) {
            readNtfy(root, members)
            return
        }
        let message = members.message < 0 ? nil : root.at(members.message)
        let aps = members.aps < 0 ? nil : root.at(members.aps)
        if let message, message.kind == .object {
            readFCMv1(message, platform: platform)
        } else if let aps, aps.kind == .object {
            format = .apns
            data.append(.object(root.tapeIndex, withoutAPS: true))
            readAPS(aps)
            setLifetime(members.apnsExpiration, .epoch)
        } else if members.data >= 0 || members.notification >= 0 {
            readGCM(root, members)
        } else {
            format = .bare
            data.append(.object(root.tapeIndex, withoutAPS: false))
        }
    }

    /// Where the payload states its lifetime (a tape index, or -1), and how.
    private mutating func setLifetime(_ index: Int32, _ form: Lifetime.Form) {
        lifetime = index
        lifetimeForm = form
    }

    /// GCM / FCM legacy HTTP: `data`, `notification`, `message_id`,
    /// `priority`, `content_available`, `to` (a `/topics/` name),
    /// `collapse_key`, `time_to_live`.
    private mutating func readGCM(_ root: JSONValue, _ members: RootMembers) {
        format = .gcm
        func member(_ index: Int32, _ kind: JSONKind) -> JSONValue? {
            guard index >= 0 else { return nil }
            let value = root.at(index)
            return value.kind == kind ? value : nil
        }
        func scalar(_ index: Int32) -> Int32 {
            guard index >= 0 else { return -1 }
            let kind = root.at(index).kind
            return kind == .string || kind == .number ? index : -1
        }
        if let object = member(members.data, .object) { data.append(.object(object.tapeIndex, withoutAPS: false)) }
        if let object = member(members.notification, .object) {
            notification.append(.object(object.tapeIndex, withoutAPS: false))
        }
        id = scalar(members.messageID)
        statedPriority = member(members.priority, .string).map { $0.isString("high") ? .high : .normal }
        contentAvailable = member(members.contentAvailable, .true) != nil
        if let to = member(members.to, .string), to.rawBytes.hasPrefix("/topics/") {
            topic = to.tapeIndex
            topicHasPrefix = true
        }
        collapseKey = scalar(members.collapseKey)
        setLifetime(members.timeToLive, .seconds)
    }

    /// FCM HTTP v1: the common fields, with the platform's block merged over
    /// them the way FCM does for a device of that platform.
    private mutating func readFCMv1(_ message: JSONValue, platform: Platform?) {
        format = .fcmV1
        id = message.scalarIndex("name")
        topic = message.scalarIndex("topic")
        let common = message.member(named: "data", kind: .object)
        if let object = message.member(named: "notification", kind: .object) {
            notification.append(.object(object.tapeIndex, withoutAPS: false))
        }
        let block = platform.flatMap { message.member(named: $0.blockName, kind: .object) }
        isAndroidData = platform == .android
        switch (platform, block) {
        case (.android?, let android?):
            // android.data, when present, replaces message.data.
            let own = android.member(named: "data", kind: .object)
            if let object = own ?? common { data.append(.object(object.tapeIndex, withoutAPS: false)) }
            if let object = android.member(named: "notification", kind: .object) {
                notification.append(.object(object.tapeIndex, withoutAPS: false))
            }
            statedPriority = android.member(named: "priority", kind: .string).map {
                $0.isString("high", ignoringCase: true) ? .high : .normal
            }
            collapseKey = android.scalarIndex("collapse_key")
            setLifetime(android.scalarIndex("ttl"), .duration)
        case (.webpush?, let webpush?):
            let own = webpush.member(named: "data", kind: .object)
            if let object = own ?? common { data.append(.object(object.tapeIndex, withoutAPS: false)) }
            if let object = webpush.member(named: "notification", kind: .object) {
                notification.append(.object(object.tapeIndex, withoutAPS: false))
            }
            platformLink = webpush.member(named: "fcm_options", kind: .object)?.stringIndex("link") ?? -1
            let headers = webpush.member(named: "headers", kind: .object)
            statedPriority = headers?.member(named: "Urgency", kind: .string).map {
                $0.isString("high", ignoringCase: true) ? .high : .normal
            }
            collapseKey = headers?.scalarIndex("Topic") ?? -1
            setLifetime(headers?.scalarIndex("TTL") ?? -1, .seconds)
        case (.apns?, let apns?):
            // The APNs payload's own keys join message.data; its aps block
            // overrides the common notification.
            if let common { data.append(.object(common.tapeIndex, withoutAPS: false)) }
            if let payload = apns.member(named: "payload", kind: .object) {
                data.append(.object(payload.tapeIndex, withoutAPS: true))
                if let aps = payload.member(named: "aps", kind: .object) { readAPS(aps) }
            }
            platformImage = apns.member(named: "fcm_options", kind: .object)?.stringIndex("image") ?? -1
            let headers = apns.member(named: "headers", kind: .object)
            statedPriority = headers?.member(named: "apns-priority", kind: .string).map { $0.isString("10") ? .high : .normal }
            collapseKey = headers?.scalarIndex("apns-collapse-id") ?? -1
            setLifetime(headers?.scalarIndex("apns-expiration") ?? -1, .epoch)
        default:
            if let common { data.append(.object(common.tapeIndex, withoutAPS: false)) }
        }
    }

    /// The notification fields and flags of an APNs `aps` block: `alert` (a
    /// string is the body; an object gives title, subtitle, body), `badge`,
    /// `sound`, `category`, `thread-id`, `content-available`.
    private mutating func readAPS(_ aps: JSONValue) {
        if let alert = aps.member(named: "alert") {
            switch alert.kind {
            case .string: notification.append(.member(.body, alert.tapeIndex))
            case .object: notification.append(.object(alert.tapeIndex, withoutAPS: false))
            default: break
            }
        }
        for field: Field in [.badge, .sound, .category, .threadID] {
            if let value = aps.member(named: field.name), value.kind != .null { notification.append(.member(field, value.tapeIndex)) }
        }
        if let flag = aps.member(named: "content-available"), flag.kind == .number, flag.rawBytes.elementsEqual("1".utf8) {
            contentAvailable = true
        }
    }
}

extension Platform {
    /// The key of this platform's block in an FCM v1 message.
    var blockName: StaticString {
        switch self {
        case .android: "android"
        case .apns: "apns"
        case .webpush: "webpush"
        }
    }
}

extension JSONValue {
    /// This value's tape index, as layouts keep it.
    var tapeIndex: Int32 { Int32(truncatingIfNeeded: index) }

    /// The value at tape index `index` of this value's document.
    package func at(_ index: Int32) -> JSONValue {
        JSONValue(tape: tape, input: input, index: Int(index))
    }

    /// The member `name` when it is of `kind`.
    func member(named name: StaticString, kind: JSONKind) -> JSONValue? {
        guard let value = member(named: name), value.kind == kind else { return nil }
        return value
    }

    /// The tape index of member `name` when it is a string, else -1.
    func stringIndex(_ name: StaticString) -> Int32 {
        member(named: name, kind: .string)?.tapeIndex ?? -1
    }

    /// The tape index of member `name` when it is a string or a number, else -1.
    func scalarIndex(_ name: StaticString) -> Int32 {
        guard let value = member(named: name), value.kind == .string || value.kind == .number else { return -1 }
        return value.tapeIndex
    }

    /// Whether this is the string `expected` (ASCII), optionally ignoring case.
    func isString(_ expected: StaticString, ignoringCase: Bool = false) -> Bool {
        guard kind == .string else { return false }
        let wanted = UnsafeRawBufferPointer(start: expected.utf8Start, count: expected.utf8CodeUnitCount)
        guard isEscaped else { return Self.equal(rawBytes, wanted, ignoringCase: ignoringCase) }
        var bytes: [UInt8] = []
        appendUnescaped(to: &bytes)
        return bytes.withUnsafeBytes { Self.equal($0, wanted, ignoringCase: ignoringCase) }
    }

    private static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer, ignoringCase: Bool) -> Bool {
        guard a.count == b.count else { return false }
        for index in 0..<a.count where ignoringCase ? lower(a[index]) != lower(b[index]) : a[index] != b[index] {
            return false
        }
        return true
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}

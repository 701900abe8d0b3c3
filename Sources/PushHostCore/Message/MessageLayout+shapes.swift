/// Telling the payload shapes apart, and where each keeps its fields.
extension MessageLayout {
    /// Works out the layout of the push payload `root`, an object:
    /// FCM HTTP v1 (`message`), APNs (`aps`), GCM / FCM legacy (`data` or
    /// `notification`), or else bare data.
    mutating func read(_ root: JSONValue, platform: Platform?) {
        reset()
        if let message = root.member(named: "message"), message.kind == .object {
            readFCMv1(message, platform: platform)
        } else if let aps = root.member(named: "aps"), aps.kind == .object {
            format = .apns
            data.append(.object(root.tapeIndex, except: "aps"))
            readAPS(aps)
        } else if root.member(named: "data") != nil || root.member(named: "notification") != nil {
            readGCM(root)
        } else {
            format = .bare
            data.append(.object(root.tapeIndex, except: nil))
        }
    }

    /// GCM / FCM legacy HTTP: `data`, `notification`, `message_id`,
    /// `priority`, `content_available`, `to` (a `/topics/` name), `collapse_key`.
    private mutating func readGCM(_ root: JSONValue) {
        format = .gcm
        if let object = root.member(named: "data", kind: .object) { data.append(.object(object.tapeIndex, except: nil)) }
        if let object = root.member(named: "notification", kind: .object) {
            notification.append(.object(object.tapeIndex, except: nil))
        }
        id = root.scalarIndex("message_id")
        statedPriority = root.member(named: "priority", kind: .string).map { $0.isString("high") ? .high : .normal }
        contentAvailable = root.member(named: "content_available")?.kind == .true
        if let to = root.member(named: "to", kind: .string), to.rawBytes.starts(with: "/topics/".utf8) {
            topic = to.tapeIndex
            topicHasPrefix = true
        }
        collapseKey = root.scalarIndex("collapse_key")
    }

    /// FCM HTTP v1: the common fields, with the platform's block merged over
    /// them the way FCM does for a device of that platform.
    private mutating func readFCMv1(_ message: JSONValue, platform: Platform?) {
        format = .fcmV1
        id = message.scalarIndex("name")
        topic = message.scalarIndex("topic")
        let common = message.member(named: "data", kind: .object)
        if let object = message.member(named: "notification", kind: .object) {
            notification.append(.object(object.tapeIndex, except: nil))
        }
        let block = platform.flatMap { message.member(named: $0.blockName, kind: .object) }
        switch (platform, block) {
        case (.android?, let android?):
            // android.data, when present, replaces message.data.
            let own = android.member(named: "data", kind: .object)
            if let object = own ?? common { data.append(.object(object.tapeIndex, except: nil)) }
            if let object = android.member(named: "notification", kind: .object) {
                notification.append(.object(object.tapeIndex, except: nil))
            }
            statedPriority = android.member(named: "priority", kind: .string).map {
                $0.isString("high", ignoringCase: true) ? .high : .normal
            }
            collapseKey = android.scalarIndex("collapse_key")
        case (.webpush?, let webpush?):
            let own = webpush.member(named: "data", kind: .object)
            if let object = own ?? common { data.append(.object(object.tapeIndex, except: nil)) }
            if let object = webpush.member(named: "notification", kind: .object) {
                notification.append(.object(object.tapeIndex, except: nil))
            }
            let headers = webpush.member(named: "headers", kind: .object)
            statedPriority = headers?.member(named: "Urgency", kind: .string).map {
                $0.isString("high", ignoringCase: true) ? .high : .normal
            }
            collapseKey = headers?.scalarIndex("Topic") ?? -1
        case (.apns?, let apns?):
            // The APNs payload's own keys join message.data; its aps block
            // overrides the common notification.
            if let common { data.append(.object(common.tapeIndex, except: nil)) }
            if let payload = apns.member(named: "payload", kind: .object) {
                data.append(.object(payload.tapeIndex, except: "aps"))
                if let aps = payload.member(named: "aps", kind: .object) { readAPS(aps) }
            }
            let headers = apns.member(named: "headers", kind: .object)
            statedPriority = headers?.member(named: "apns-priority", kind: .string).map { $0.isString("10") ? .high : .normal }
            collapseKey = headers?.scalarIndex("apns-collapse-id") ?? -1
        default:
            if let common { data.append(.object(common.tapeIndex, except: nil)) }
        }
    }

    /// The notification fields and flags of an APNs `aps` block: `alert` (a
    /// string is the body; an object gives title, subtitle, body), `badge`,
    /// `sound`, `category`, `thread-id`, `content-available`.
    private mutating func readAPS(_ aps: JSONValue) {
        if let alert = aps.member(named: "alert") {
            switch alert.kind {
            case .string: notification.append(.member("body", alert.tapeIndex))
            case .object: notification.append(.object(alert.tapeIndex, except: nil))
            default: break
            }
        }
        for name: StaticString in ["badge", "sound", "category", "thread-id"] {
            if let value = aps.member(named: name), value.kind != .null { notification.append(.member(name, value.tapeIndex)) }
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

    /// The member `name` when it is of `kind`.
    func member(named name: StaticString, kind: JSONKind) -> JSONValue? {
        guard let value = member(named: name), value.kind == kind else { return nil }
        return value
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

extension Message {
    /// One object of a message, `data` or `notification`, read by key.
    ///
    /// ```swift
    /// let title = message.data["title"]                        // one value, from the host
    /// for (key, value) in message.data { print(key, value) }   // every member, in order
    /// let all = message.data.dictionary                        // [String: String]
    /// ```
    ///
    /// Reading one key asks the host for that value only. Iterating, `keys`,
    /// `count`, `isEmpty` and `dictionary` read the whole object at once,
    /// each time: keep the result when you need it more than once. Members
    /// that are null are left out, as the subscript gives nil for them.
    public struct Fields: Sendable, Sequence {
        private let storage: MessageStorage
        /// `data` or `notification`, the object's path in the message.
        private let name: StaticString

        init(storage: MessageStorage, name: StaticString) {
            self.storage = storage
            self.name = name
        }

        /// The member `key` as text (strings as they are, other values as
        /// their JSON text), or nil when absent or null.
        public subscript(key: String) -> String? {
            var text = key
            return text.withUTF8 { bytes in
                // The host reads a dot as a step into a nested value: such a
                // key is looked up among the members instead.
                if bytes.contains(UInt8(ascii: ".")) { return members.first { $0.key == key }?.value }
                // "NAME.KEY", NUL-ended, on the stack.
                let prefix = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
                let length = prefix.count + 1 + bytes.count
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length + 1) { path in
                    _ = path.initialize(fromContentsOf: prefix)
                    path[prefix.count] = UInt8(ascii: ".")
                    _ = UnsafeMutableBufferPointer(rebasing: path[(prefix.count + 1)...]).initialize(fromContentsOf: bytes)
                    path[length] = 0
                    return path.withMemoryRebound(to: CChar.self) { storage.value(at: $0.baseAddress!) }
                }
            }
        }

        /// The members' keys, in the message's order.
        public var keys: [String] { members.map(\.key) }

        /// How many members the object has.
        public var count: Int { members.count }

        /// Whether the object has no member (or, for `notification`, is absent).
        public var isEmpty: Bool { members.isEmpty }

        /// Every member, as a dictionary.
        public var dictionary: [String: String] {
            Dictionary(members, uniquingKeysWith: { _, last in last })
        }

        /// Every member, in the message's order (read at once).
        public func makeIterator() -> IndexingIterator<[(key: String, value: String)]> {
            members.makeIterator()
        }

        /// Every member as text, in order, read at once.
        private var members: [(key: String, value: String)] {
            // A StaticString's text ends with a NUL.
            storage.value(at: UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self))
                .map(CompactJSON.members(of:)) ?? []
        }
    }
}

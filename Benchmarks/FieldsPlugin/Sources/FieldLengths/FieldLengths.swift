#if canImport(Glibc)
import Glibc
#endif
import PushHostPlugin
import Synchronization

/// What a typical plugin reads of each message: its target, data.title,
/// data.body and priority. Adds up their lengths in UTF-8 bytes, so that no
/// read can be left out, and writes "messages N bytes B" to a file at the end.
///
/// The SDK's `Message` has no priority field, so it is found in
/// `message.json`, where the host always writes it as a string
/// (`"priority":"high"`), byte by byte: the way an author without a JSON
/// parser at hand would find it, and cheap next to the SDK's copy.
public final class FieldLengths: Sendable {
    private let out: String?
    private let messages = Atomic(0)
    private let bytes = Atomic(0)

    /// Writes to the file at `out`, when given.
    public init(out: String?) {
        self.out = out
    }

    /// Reads the four fields of `message` and adds their lengths.
    public func add(_ message: Message) {
        let length = (message.target?.utf8.count ?? 0) + (message.data["title"]?.utf8.count ?? 0)
            + (message.data["body"]?.utf8.count ?? 0) + Self.priorityLength(of: message)
        messages.add(1, ordering: .relaxed)
        bytes.add(length, ordering: .relaxed)
    }

    /// Writes "messages N bytes B" to `out`, when given.
    public func write() {
        guard let out, let file = fopen(out, "w") else { return }
        fputs("messages \(messages.load(ordering: .relaxed)) bytes \(bytes.load(ordering: .relaxed))\n", file)
        fclose(file)
    }

    private static let priorityKey = Array(#""priority":""#.utf8)

    /// The length of `priority`'s value in the message's normalized JSON,
    /// in bytes (0 when absent).
    private static func priorityLength(of message: Message) -> Int {
        var json = message.json
        return json.withUTF8 { json in
            guard let base = json.baseAddress, json.count >= priorityKey.count else { return 0 }
            for start in 0...(json.count - priorityKey.count) where memcmp(base + start, priorityKey, priorityKey.count) == 0 {
                let value = json[(start + priorityKey.count)...]
                return (value.firstIndex(of: UInt8(ascii: "\"")) ?? value.endIndex) - value.startIndex
            }
            return 0
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import PushHostPlugin
import Synchronization

/// What a typical plugin reads of each message: its target, data.title,
/// data.body and priority. Adds up their lengths in UTF-8 bytes, so that no
/// read can be left out, and writes "messages N bytes B" to a file at the end.
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
            + (message.data["body"]?.utf8.count ?? 0) + (message.priority?.utf8.count ?? 0)
        messages.add(1, ordering: .relaxed)
        bytes.add(length, ordering: .relaxed)
    }

    /// Writes "messages N bytes B" to `out`, when given.
    public func write() {
        guard let out, let file = fopen(out, "w") else { return }
        fputs("messages \(messages.load(ordering: .relaxed)) bytes \(bytes.load(ordering: .relaxed))\n", file)
        fclose(file)
    }
}

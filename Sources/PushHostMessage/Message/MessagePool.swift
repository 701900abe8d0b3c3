import Synchronization

/// The messages the dispatch stages use, kept for the next message instead
/// of being freed, so that the address a handle's slot held always stays a
/// ``Message`` (see ``Message``): an accessor racing with the end of a
/// message locks a message that exists, and finds it under another handle.
///
/// It holds as many messages as were ever alive at once (bounded by
/// `--max-pending` and the queue behind it), each emptied of its bytes and
/// strings while it waits.
package enum MessagePool {
    private static let free = Mutex<[Message]>([])

    /// A message with a fresh handle.
    package static func take() -> Message {
        guard let message = free.withLock({ $0.popLast() }) else { return Message() }
        message.claimHandle()
        return message
    }

    /// Takes back `message`, once the host is done with it: its handle is
    /// retired and what it held is freed.
    package static func give(_ message: Message) {
        message.retireHandle()
        message.reset()
        free.withLock { $0.append(message) }
    }
}

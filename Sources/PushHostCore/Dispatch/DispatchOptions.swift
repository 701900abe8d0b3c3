/// The flags of `pushhost run` that shape how records are read and dispatched.
public struct DispatchOptions: Sendable {
    /// The data key holding a message's target (`--target-key`).
    public var targetKey = "rx_gcm_key_target"
    /// The platform whose FCM v1 block is merged over the common fields (`--platform`).
    public var platform: Platform?
    /// The longest record accepted, in bytes (`--max-bytes`).
    public var maxBytes = 65536
    /// How long a pending data verdict may take, in seconds (`--data-timeout`).
    public var dataTimeout = 30.0
    /// How many messages may wait for `complete` before reading pauses (`--max-pending`).
    public var maxPending = 1024
    /// The screens visible at start, top first; nil starts in the background (`--foreground`).
    public var foreground: [String]?

    public init() {}
}

/// A device platform, for FCM HTTP v1 messages (`--platform`).
public enum Platform: String, Sendable, CaseIterable {
    case android
    case apns
    case webpush
}

/// The flags of `pushhost run` that shape how records are read and dispatched.
package struct RunOptions: Sendable {
    /// The data key holding a message's target (`--target-key`).
    package var targetKey = "rx_gcm_key_target"
    /// The platform whose FCM v1 block is merged over the common fields (`--platform`).
    package var platform: Platform?
    /// The longest record accepted, in bytes (`--max-bytes`).
    package var maxBytes = 65536
    /// How long a pending data verdict may take, in seconds (`--data-timeout`).
    package var dataTimeout = 30.0
    /// How many messages may wait for `complete` before reading pauses (`--max-pending`).
    package var maxPending = 1024
    /// The screens visible at start, top first; nil starts in the background (`--foreground`).
    package var foreground: [String]?
    /// Where the report goes (`--report`: a file, `-` for standard output), or nil for none.
    package var report: String?

    package init() {}
}

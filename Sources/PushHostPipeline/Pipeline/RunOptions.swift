import PushHostRecords
import PushHostMessage
import PushHostPlugins

/// The flags of `pushhost run` that shape how records are read and dispatched.
package struct RunOptions: Sendable {
    /// The data key holding a message's target (`--target-key`).
    package var targetKey = StoredMessage.defaultTargetKey
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
    /// How long a handler call may take before the host gives up on it and
    /// exits, in seconds; 0 for no limit (`--handler-timeout`).
    package var handlerTimeout = 30.0
    /// How long a stop waits for records under way, in seconds (`--stop-timeout`).
    package var stopTimeout = 5.0
    /// After how many crashes of the host on one spool file the file goes
    /// to `failed/` (`--crash-limit`).
    package var crashLimit = 3
    /// How long an action waits for its screen to become visible, in
    /// seconds (`--retain-for`).
    package var retainFor = 24 * 3600.0
    /// How many delivered messages the store keeps for actions, at least
    /// (`--store-limit`; it keeps up to twice as many).
    package var storeLimit = 10_000
    /// Whether a message past its lifetime when it arrives still meets the
    /// data stage (`--expired-data`); it never reaches the UI stage.
    package var expiredData = true
    /// `--store-mib`, in bytes.
    package var storeBytes = DeliveredStore.defaultByteLimit
    /// Which plugins run in worker processes, and their limits (`--isolate`, `--worker-*`).
    package var isolation = IsolationOptions()
    /// Whether a spool file of the host's own user may hold host events (`--spool-events`).
    package var spoolEvents = true
    /// Where the report goes (`--report`: a file, `-` for standard output), or nil for none.
    package var report: String?
    /// What `--metrics` counts and `/healthz` says, or nil when it is off.
    package var metrics: HostMetrics?
    /// The state folder of this run alone (`--ephemeral`), removed at every
    /// exit, the watchdog's too; nil with `--state` or the default folder.
    package var ephemeral: EphemeralState?

    package init() {}
}

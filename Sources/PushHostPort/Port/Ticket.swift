import PushHostPlugins
/// The end of a call made elsewhere (``RemotePlugin``): a stage that must
/// not go on before the call ended (a report line, the next UI call in
/// another process) holds its ticket and asks it, or has the scheduler wait
/// for it (``CallScheduler``).
@usableFromInline package struct Ticket {
    @usableFromInline let remote: UnretainedRemote
    /// The call's number among the plugin's calls.
    @usableFromInline let call: UInt64

    @usableFromInline init(remote: UnretainedRemote, call: UInt64) {
        self.remote = remote
        self.call = call
    }

    /// Whether the call ended (it was answered, or it failed).
    @inlinable package var hasEnded: Bool { remote.answeredThrough >= call }
}

import PushHostRecords
import PushHostMessage

/// A message between arrival and its report line: where it stands among the
/// interceptors and in its data stage, what the data plugins gave as
/// verdicts, and who learns the result.
///
/// Its message comes from ``MessagePool``, with a handle of its own, and
/// goes back there (its handle retired) when the record goes.
@usableFromInline package final class InFlight {
    // Unchecked accesses: only the dispatch thread touches a record, and
    // each check would cost more than what it guards.
    @usableFromInline package let message: Message
    @exclusivity(unchecked) @usableFromInline package var interception = Interception()
    /// The record's completion, when its source asked for one.
    @exclusivity(unchecked) package var completion: RecordCompletion?
    /// The index, among the data plugins, of the next one to call; while
    /// `isWaiting`, the one whose `complete` is awaited.
    @usableFromInline package var next = 0
    /// Each data plugin's verdict, in load order: the first `next` are set.
    @usableFromInline package let verdicts: UnsafeMutableBufferPointer<Verdict>
    /// Whether any verdict so far is failed, or suppress.
    @usableFromInline package var anyFailed = false
    @usableFromInline package var anySuppressed = false
    /// Why, when any verdict is failed, or a UI handler could not take the message.
    @exclusivity(unchecked) package var errors: [String] = []
    /// Whether a `complete` is awaited, and until when (monotonic ns).
    @usableFromInline package var isWaiting = false
    package var deadline: UInt64 = 0
    /// While it waits: its entry among the data stage's deadlines.
    package var deadlineEntry = 0
    /// When the record arrived (Unix milliseconds), for a message with a
    /// lifetime; and whether it was found past it.
    package var arrival: Int64 = 0
    @usableFromInline package var expired = false

    package init(dataPlugins: Int, message: Message = MessagePool.take()) {
        self.message = message
        verdicts = .allocate(capacity: max(dataPlugins, 1))
    }

    deinit {
        verdicts.deallocate()
        MessagePool.give(message)
    }

    /// Whether the data stage has ended, or has nothing to do (an
    /// interceptor stopped the message, or it expired before its data
    /// stage under `--expired-data off`: `expired` is set before the data
    /// stage only then).
    @inlinable @inline(__always) package func isDone(dataPlugins: Int) -> Bool {
        !isWaiting && (next >= dataPlugins || interception.stop != nil || expired)
    }

    /// Notes the current data plugin's final verdict and moves past it.
    @inlinable @inline(__always) package func record(_ verdict: Verdict) {
        verdicts[next] = verdict
        anyFailed = anyFailed || verdict == .failed
        anySuppressed = anySuppressed || verdict == .suppress
        next += 1
    }

    /// Its message keeps a copy of its bytes (``Message/detach(locked:)``):
    /// the record waits. A call from here takes no count of the message.
    package func detach(locked: Bool) {
        message.detach(locked: locked)
    }

    /// Makes this in-flight record ready for the next message, keeping
    /// capacity and the message's handle.
    package func recycle() {
        message.reset()
        next = 0
        if !errors.isEmpty { errors.removeAll(keepingCapacity: true) }
        anyFailed = false
        anySuppressed = false
        expired = false
        isWaiting = false
        if interception.passed != 0 || interception.stop != nil { interception = Interception() }
        if completion != nil { completion = nil }
    }
}

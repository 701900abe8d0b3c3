/// A message between arrival and its report line: where its data stage
/// stands, and what the data plugins answered.
final class InFlight {
    let message: Message
    /// The index, among the data plugins, of the next one to call; while
    /// `isWaiting`, the one whose `complete` is awaited.
    var next = 0
    /// What each data plugin answered, in load order: the first `next` are set.
    let verdicts: UnsafeMutableBufferPointer<VerdictWord>
    /// Whether any answer so far is failed, or suppress.
    var anyFailed = false
    var anySuppressed = false
    /// Why, when any answer is failed.
    var errors: [String] = []
    /// Whether a `complete` is awaited, and until when (monotonic ns).
    var isWaiting = false
    var deadline: UInt64 = 0

    init(dataPlugins: Int, message: Message = Message()) {
        self.message = message
        verdicts = .allocate(capacity: max(dataPlugins, 1))
    }

    deinit {
        verdicts.deallocate()
    }

    /// Whether the data stage has ended.
    func isDone(dataPlugins: Int) -> Bool {
        !isWaiting && next >= dataPlugins
    }

    /// Notes the current data plugin's final answer and moves past it.
    func answer(_ verdict: VerdictWord) {
        verdicts[next] = verdict
        anyFailed = anyFailed || verdict == .failed
        anySuppressed = anySuppressed || verdict == .suppress
        next += 1
    }

    /// Makes this in-flight record ready for the next message, keeping capacity.
    func recycle() {
        message.reset()
        next = 0
        if anyFailed { errors.removeAll(keepingCapacity: true) }
        anyFailed = false
        anySuppressed = false
        isWaiting = false
    }
}

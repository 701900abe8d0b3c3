/// A message between arrival and its report line: where its data stage
/// stands, and what the data plugins answered.
final class InFlight {
    let message: Message
    /// The index, among the data plugins, of the next one to call.
    var next = 0
    var verdicts: [(plugin: PluginInstance, verdict: VerdictWord)] = []
    var errors: [String] = []
    /// The data plugin whose `complete` is awaited, and until when (monotonic ns).
    var waiting: PluginInstance?
    var deadline: UInt64 = 0

    init(message: Message = Message()) {
        self.message = message
        verdicts.reserveCapacity(8)
    }

    /// Whether the data stage has ended.
    func isDone(dataPlugins: Int) -> Bool {
        waiting == nil && next >= dataPlugins
    }

    /// Makes this in-flight record ready for the next message, keeping capacity.
    func recycle() {
        message.reset()
        next = 0
        verdicts.removeAll(keepingCapacity: true)
        if !errors.isEmpty { errors.removeAll(keepingCapacity: true) }
        waiting = nil
    }
}

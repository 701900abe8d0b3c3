import Dispatch
import Synchronization

/// Where a data plugin's handler calls run: on its `DataRunner`, or, while
/// that is busy with a call that suspended, on a task of their own
/// (started with `Task.immediate`, so on the host's thread until it first
/// suspends). `end()`, at `destroy`, cancels every call still under way and
/// waits for each to end, so that the plugin's `shutdown` comes after them.
final class DataHandlers: Sendable {
    private let runner = DataRunner()
    /// The calls on tasks of their own still under way, by number.
    private let overflow = Mutex(Overflow())
    /// Entered by each call on a task of its own, left when it ends.
    private let underWay = DispatchGroup()

    private struct Overflow {
        var next = 0
        var tasks: [Int: Task<Void, Never>] = [:]
        /// Calls that ended before their task was noted.
        var ended: Set<Int> = []
        /// Set by `end()`: a task noted afterwards is cancelled at once.
        var cancelled = false
    }

    /// Runs `call` at once: on the runner when it waits, else on a task of its own.
    func run(_ call: DataCall) {
        if runner.run(call) { return }
        underWay.enter()
        let number = overflow.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        let task = Task.immediate { [self] in
            await call.run()
            overflow.withLock { state in
                if state.tasks.removeValue(forKey: number) == nil { state.ended.insert(number) }
            }
            underWay.leave()
        }
        let cancel = overflow.withLock { state in
            if state.ended.remove(number) == nil { state.tasks[number] = task }
            return state.cancelled
        }
        if cancel { task.cancel() }
    }

    /// Cancels every call under way and waits until each has ended.
    func end() {
        let tasks = overflow.withLock { state in
            state.cancelled = true
            return Array(state.tasks.values)
        }
        tasks.forEach { $0.cancel() }
        runner.end()
        underWay.wait()
    }
}

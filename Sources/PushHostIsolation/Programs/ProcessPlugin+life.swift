#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import PushHostMessage
import PushHostRecords
import PushHostSystem

/// A process plugin's program ending, starting again, and stopping.
extension ProcessPlugin {
    /// The program ended with wait `status`. When it had one call under
    /// way, alone (calls go one at a time after a crash), that call fails;
    /// when it had several, they go to the next program one at a time. At
    /// a stop's deadline they are given up. Then it starts again after a
    /// backoff, or the plugin is disabled, or (at shutdown) it takes note.
    func ended(_ status: Int32, verdicts: Workers.VerdictSink) {
        let killedFor = process?.killedFor
        let malformed = process?.rejection.map { "wrote a malformed answer: \($0)" }
        process = nil
        out.removeAll()
        if case .stopped = phase { return }
        let how = Worker.describe(status)
        workers.metrics?.crashed(name, signal: (status & 0x7f) != 0 ? CrashJournal.Cause.signalName(status & 0x7f) : "exit")
        let underWay = unansweredPositions
        var place = underWay.isEmpty ? "between calls" : "with \(underWay.count) calls under way"
        if killedFor == .stopTimeout {
            for position in underWay { giveUp(calls[position], how: how, verdicts: verdicts) }
        } else if underWay.count == 1 {
            let call = calls[underWay[0]]
            place = "in \(call.handler.name)"
            answer(call.id, verdict: PH_FAILED, problem: reason(call, malformed: malformed, killedFor: killedFor, how: how), verdicts: verdicts)
        } else if let last = underWay.last {
            replayThrough = calls[last].id
        }
        // What was written and not answered goes to the next program.
        sentThrough = answeredThrough
        unanswered = 0
        noteCrash(launch.ending(malformed: malformed, killedFor: killedFor, place: place, how: how), verdicts: verdicts)
    }

    /// Why `call` failed, the one call under way when the program ended.
    private func reason(_ call: Call, malformed: String?, killedFor: ChildProcess.KillReason?, how: String) -> String {
        let handler = call.handler.name
        return switch (malformed, killedFor) {
        case (let malformed?, _): "plugin \(name) \(malformed)"
        case (nil, .handlerTimeout?): "plugin \(name) did not answer \(handler) within --handler-timeout \(launch.handlerTimeout)s (its program was killed)"
        case (nil, _) where how.hasPrefix("SIG"): "plugin \(name) crashed in \(handler): \(how)"
        case (nil, _): "plugin \(name)'s program exited in \(handler) (\(how))"
        }
    }

    /// Gives `call` up at a stop's deadline, as a handler in the host would be: its record ends as at a stop.
    private func giveUp(_ call: Call, how: String, verdicts: Workers.VerdictSink) {
        let reason = "plugin \(name) was still in \(call.handler.name) when --stop-timeout \(launch.stopTimeout)s ran out (its program was killed)"
        guard call.address != 0, call.handler != .onData else {
            return answer(call.id, verdict: PH_FAILED, problem: reason, verdicts: verdicts)
        }
        Message.noteGivenUp(OpaquePointer(bitPattern: call.address)!, reason)
        answer(call.id, verdict: PH_CONTINUE, problem: nil, verdicts: verdicts)
    }

    /// The positions of the calls written and not answered, oldest first.
    private var unansweredPositions: [Int] {
        guard !calls.isEmpty, sentThrough >= calls[0].id else { return [] }
        return (0...Int(sentThrough - calls[0].id)).filter { !calls[$0].answered }
    }

    /// Counts a crash of the program (`what` it did), then starts it again
    /// after a backoff, or disables the plugin past `--worker-crash-limit`,
    /// failing the calls that wait.
    private func noteCrash(_ what: String, verdicts: Workers.VerdictSink) {
        let now = MonotonicClock.now()
        guard let backoff = crashes.count(at: now) else {
            logger.error("plugin \(name) disabled: its program crashed \(crashes.recent) times within \(launch.crashWindow)s (more than --worker-crash-limit \(launch.crashLimit)); the host goes on without it")
            phase = .disabled
            workers.metrics?.disabled(name, true)
            while let position = calls.indices.first(where: { !calls[$0].answered }) {
                answer(calls[position].id, verdict: PH_FAILED, problem: disabledReason, verdicts: verdicts)
            }
            return
        }
        logger.error("plugin \(name)'s program \(what); starting it again in \(backoff)s (crash \(crashes.recent) of --worker-crash-limit \(launch.crashLimit) within \(launch.crashWindow)s)")
        phase = .restarting(at: now &+ UInt64(backoff * 1e9))
    }

    /// Why the calls of a disabled plugin fail.
    var disabledReason: String {
        "plugin \(name) is disabled (its program crashed more than --worker-crash-limit \(launch.crashLimit) times within \(launch.crashWindow)s)"
    }

    var isRestarting: Bool {
        if case .restarting = phase { return true }
        return false
    }

    /// When the backoff ends (monotonic ns), or nil.
    var restartTime: UInt64? {
        if case .restarting(let at) = phase { return at }
        return nil
    }

    /// Starts the program again when its backoff is over, and writes it the calls that wait.
    func restartIfDue(now: UInt64, verdicts: Workers.VerdictSink) {
        guard case .restarting(let at) = phase, at <= now else { return }
        do {
            try start()
        } catch {
            // As a crash: a plugin whose program can never start again is disabled, and its calls fail.
            return noteCrash("could not start again: \(error)", verdicts: verdicts)
        }
        sendMore()
        flush()
    }

    // MARK: Shutdown

    package var stopTimeout: Double { launch.stopTimeout }

    /// Closes the program's standard input, once: it is to answer what it
    /// has and end. Waited for with the others (``finishStop(by:)``).
    package func beginStop() {
        guard case .running = phase else { return }
        phase = .stopped
        guard let process else { return }
        stopping = process
        process.closeCalls()
    }

    /// Waits for the program asked to stop to end until `deadline`
    /// (monotonic ns), then kills it.
    package func finishStop(by deadline: UInt64) -> Bool {
        guard let process = stopping else { return false }
        stopping = nil
        guard process.end(by: deadline) else { return false }
        logger.error("plugin \(name): its program did not end by the stop's deadline (--stop-timeout \(launch.stopTimeout)s) after its input ended; killed")
        return true
    }
}

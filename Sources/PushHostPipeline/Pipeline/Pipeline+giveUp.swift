import PushHostMessage

import PushHostRecords
import PushHostPlugins

/// The end of a run whose watchdog gave up on a handler call (exit status
/// 4). It runs on the watchdog's thread while the dispatch thread is held
/// in that call: the dispatch thread touches no record and no report line
/// again (`CrashJournal.leave` parks it should the call return), so the
/// lines below are written once, by this thread alone.
///
/// As at a stop, only records that cannot be taken again get a line: a
/// line of standard input. A spool file stays in `new/` and a plugin's
/// record is handed again at the next start, which reports it then;
/// records not taken yet get no line, as a stop takes nothing new.
extension Pipeline {
    /// Writes the line of the record under way in `call` (failed, with the
    /// plugin and the handler and why), of every record waiting in the
    /// queue, in input order, and of every message an interceptor holds
    /// (failed), then writes out the report.
    package func giveUp(_ call: GivenUpCall) {
        let flight = flight(of: call)
        // A UI stage or an event runs once its record left the head of the
        // queue: its line comes first. A data stage's record is in the queue,
        // or joins it at the end.
        var written = call.handler.map { [.onBackground, .onTarget, .onMismatch, .onToken, .onAction].contains($0) } ?? false
        if written { writeGivenUp(flight, call) }
        for position in queue.indices {
            let waiting = queue[position]
            if case .message(let queued) = waiting, queued === flight {
                if !written { writeGivenUp(flight, call) }
                written = true
            } else {
                abandon(waiting)
            }
        }
        if !written { writeGivenUp(flight, call) }
        // No interceptor is called again: their turns are closed here, and a
        // late `proceed` or `stop` is ignored.
        for (held, by) in interceptors.abandonAll() where held !== flight && held.completion == nil {
            report.write(.retry, completion: nil) {
                MessageLine(flight: held, status: .failed, route: .none, names: reportNames, ui: ReportNames.none,
                            problem: "the host exited while the interceptor \(by) held it")
            }
        }
        flushAll()
    }

    /// The message the call was made for, when the pipeline has it at hand.
    private func flight(of call: GivenUpCall) -> InFlight? {
        guard let source = call.source else { return nil }
        if let flight = underWay, flight.message.source == source { return flight }
        if current.message.source == source { return current }
        for position in queue.indices {
            if case .message(let flight) = queue[position], flight.message.source == source { return flight }
        }
        return nil
    }

    /// Writes the line of the record of `call`: its message's, when at
    /// hand, with the handler's plugin as a data verdict or in the UI stage.
    private func writeGivenUp(_ flight: InFlight?, _ call: GivenUpCall) {
        guard let source = call.source, flight?.completion == nil, case .stdin = source else { return }
        guard let flight else {
            switch call.handler {
            case .onOutcome?: return  // Its line was written before the call.
            case .onToken?: report.write(.retry, completion: nil) { FailedEventLine(kind: .token, reason: call.reason, source: source) }
            case .onAction?: report.write(.retry, completion: nil) { FailedEventLine(kind: .action, reason: call.reason, source: source) }
            default: report.write(.retry, completion: nil) { FailedLine(reason: call.reason, source: source) }
            }
            return
        }
        var taken = Route.none
        var called: [Int32] = []
        switch call.handler {
        case .onOutcome?: return
        case .onData? where flight.next < dataStage.count: flight.record(.failed)
        case .onBackground?:
            taken = .background
            // The background plugins called so far, in load order: the hung one last.
            let plugins = route.backgroundPlugins
            called = plugins.firstIndex(of: call.plugin).map { Array(plugins[...$0]) } ?? [call.plugin]
        case .onTarget?:
            // The report names the route, not the screen's place.
            taken = .target(screen: 0)
            called = [call.plugin]
        case .onMismatch?:
            taken = .mismatch
            called = [call.plugin]
        default: break
        }
        flight.errors.append(call.reason)
        let ui = ReportNames.array(called.map(call.name))
        report.write(.retry, completion: nil) {
            MessageLine(flight: flight, status: .failed, route: taken, names: reportNames, ui: ui, problem: Self.problem(of: flight))
        }
    }

    /// Writes the line of a record that waited in the queue: as a stop
    /// would, but without calling any plugin (a message whose verdicts let
    /// it reach its UI stage fails, and so does an event).
    private func abandon(_ waiting: Waiting) {
        switch waiting {
        case .message(let flight) where flight.completion == nil:
            let (status, problem) = ending(of: flight)
            report.write(status.result, completion: nil) {
                MessageLine(flight: flight, status: status, route: .none, names: reportNames, ui: ReportNames.none, problem: problem)
            }
        case .event(let event, let source, nil):
            report.write(.retry, completion: nil) { EventLine(event: event, status: .failed("the host exited before it was applied"), source: source) }
        case .rejected(let error, let source, nil):
            report.write(.rejected, completion: nil) { RejectedLine(error: error, source: source) }
        case .unrouted(.failed(let reason), let source, nil):
            report.write(.retry, completion: nil) { FailedLine(reason: reason, source: source) }
        case .unrouted(.skipped(let event), let source, nil):
            report.write(Status.skipped.result, completion: nil) { SkippedLine(event: event, source: source) }
        default:
            break  // A spool file's or a plugin's record: taken again at the next start.
        }
    }

    /// What becomes of a queued message that gets no UI stage: as its
    /// verdicts say when they keep it from one, else failed.
    private func ending(of flight: InFlight) -> (Status, String?) {
        guard dataStage.isDone(flight) else { return (.failed, "the host exited before its data stage ended") }
        if let stop = flight.interception.stop { return (stop.effect == .suppressed ? .suppressed : .failed, Self.problem(of: flight)) }
        if flight.anyFailed { return (.failed, Self.problem(of: flight)) }
        if flight.anySuppressed { return (.suppressed, nil) }
        return (.failed, "the host exited before its UI stage")
    }
}

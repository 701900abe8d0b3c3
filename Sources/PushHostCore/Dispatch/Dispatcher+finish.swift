import CPushHost

/// The end of a record's way: the UI stage, host events, the report line.
extension Dispatcher {
    /// Who the UI stage called.
    enum Called {
        case nobody
        case background
        /// The visible screen at this position, by `route` (target or mismatch).
        case screen(Int, Route)

        var route: Route {
            switch self {
            case .nobody: .none
            case .background: .background
            case .screen(_, let route): route
            }
        }
    }

    /// Decides the message's status from its data verdicts, runs its UI
    /// stage when they allow it, and writes its report line.
    func finish(_ flight: InFlight) {
        let status: Status
        var called = Called.nobody
        if flight.anyFailed {
            status = .failed
            failedCount += 1
        } else if flight.anySuppressed {
            status = .suppressed
        } else {
            called = runUIStage(flight.message)
            if case .nobody = called { status = .undelivered } else { status = .delivered }
        }
        let problem = flight.anyFailed ? flight.errors.joined(separator: "; ") : nil
        if let report { write(flight, status: status, called: called, problem: problem, to: report) }
        recordFinished?(flight.message.source, status.rawValue, problem)
    }

    private func write(_ flight: InFlight, status: Status, called: Called, problem: String?, to report: ReportWriter) {
        report.line { line in
            line.key("id")
            flight.message.appendIDJSON(to: &line.bytes)
            line.key("target")
            flight.message.appendTargetJSON(to: &line.bytes)
            line.string("status", status.rawValue)
            line.string("route", called.route.rawValue)
            line.key("data")
            line.bytes.append(UInt8(ascii: "["))
            for index in 0..<flight.next {
                if index > 0 { line.bytes.append(UInt8(ascii: ",")) }
                line.object { item in
                    item.string("plugin", plugins.data[index].name)
                    item.string("verdict", flight.verdicts[index].rawValue)
                }
            }
            line.bytes.append(UInt8(ascii: "]"))
            switch called {
            case .nobody: line.strings("ui", [])
            case .background: line.strings("ui", plugins.background.map(\.name))
            case .screen(let position, _): line.strings("ui", [visible.names[position]])
            }
            line.string("error", problem)
            line.key("source")
            flight.message.source.appendJSON(to: &line.bytes)
        }
    }

    /// Exactly one route: the background plugins; or the first visible
    /// screen whose targets hold the message's target; or the top screen's
    /// mismatch handler. Nobody is called when that route has no handler.
    private func runUIStage(_ message: Message) -> Called {
        let screens = visible
        guard !screens.isEmpty else {
            let background = handlers.background
            for handler in background { handler.raw.on_background?(handler.state, message.opaque) }
            return background.isEmpty ? .nobody : .background
        }
        let matched = message.withTarget { target in target.flatMap { screens.claiming($0) } }
        if let position = matched {
            let screen = screens.screens[position].handler
            guard let onTarget = screen.raw.on_target else { return .nobody }
            onTarget(screen.state, message.opaque)
            return .screen(position, .target)
        }
        let top = screens.screens[0]
        guard let onMismatch = top.handler.raw.on_mismatch else { return .nobody }
        onMismatch(top.handler.state, message.opaque)
        return .screen(0, .mismatch)
    }

    /// Applies a host event and writes its report line.
    func apply(_ event: HostEvent, source: MessageSource) {
        var status = "applied"
        var problem: String?
        switch event {
        case .background:
            visible.deallocate()
            visible = VisibleScreens()
        case .foreground(let names):
            if let unknown = names.first(where: { plugins.screens[$0] == nil }) {
                return reject(RecordError(event: event.word, reason: Self.unknownScreen(unknown, plugins)), source: source)
            }
            visible.deallocate()
            visible = VisibleScreens(names.map { plugins.screens[$0]! })
        case .token(let token):
            do {
                if let previous = try tokens.replace(with: token) {
                    status = "stored"
                    token.withCString { new in
                        withOptionalCString(previous) { previous in
                            for plugin in plugins.token { plugin.onToken(new, previous: previous) }
                        }
                    }
                } else {
                    status = "unchanged"
                }
            } catch {
                logger.error("\(source.place): the token could not be stored: \(error)")
                status = "failed"
                failedCount += 1
                problem = "\(error)"
            }
        }
        report?.line { line in
            line.string("event", event.word)
            line.string("status", status)
            if case .foreground(let screens) = event { line.strings("screens", screens) }
            if let problem { line.string("error", problem) }
            line.key("source")
            source.appendJSON(to: &line.bytes)
        }
        recordFinished?(source, status, problem)
    }

    /// Reports a record that is neither a valid message nor a valid host
    /// event, on standard error and in the report.
    func reject(_ error: RecordError, source: MessageSource) {
        rejectedCount += 1
        let place = error.offset.map { "\(source.place), byte \($0)" } ?? source.place
        logger.error("rejected \(place): \(error.reason)")
        report?.line { line in
            if let event = error.event {
                line.string("event", event)
            } else {
                line.string("id", nil)
                line.string("target", nil)
            }
            line.string("status", Status.rejected.rawValue)
            if error.event == nil {
                line.string("route", Route.none.rawValue)
                line.strings("data", [])
                line.strings("ui", [])
            }
            line.string("error", error.offset.map { "byte \($0): \(error.reason)" } ?? error.reason)
            line.key("source")
            source.appendJSON(to: &line.bytes)
        }
        recordFinished?(source, Status.rejected.rawValue, error.offset.map { "byte \($0): \(error.reason)" } ?? error.reason)
    }
}

/// Calls `body` with `text` as a C string, or with NULL.
private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}

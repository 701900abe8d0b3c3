import CPushHost

/// The end of a record's way: the UI stage, host events, the report line.
extension Dispatcher {
    /// Decides the message's status from its data verdicts, runs its UI
    /// stage when they allow it, and writes its report line.
    func finish(_ flight: InFlight) {
        let verdicts = flight.verdicts
        var status: Status
        var route = Route.none
        var called: [PluginInstance] = []
        if verdicts.contains(where: { $0.verdict == .failed }) {
            status = .failed
            failedCount += 1
        } else if verdicts.contains(where: { $0.verdict == .suppress }) {
            status = .suppressed
        } else {
            (route, called) = runUIStage(flight.message)
            status = called.isEmpty ? .undelivered : .delivered
            if called.isEmpty { route = .none }
        }
        report?.line { line in
            line.key("id")
            flight.message.appendIDJSON(to: &line.bytes)
            line.key("target")
            flight.message.appendTargetJSON(to: &line.bytes)
            line.string("status", status.rawValue)
            line.string("route", route.rawValue)
            line.key("data")
            line.bytes.append(UInt8(ascii: "["))
            for (index, answer) in verdicts.enumerated() {
                if index > 0 { line.bytes.append(UInt8(ascii: ",")) }
                var item = JSONLine(bytes: line.bytes)
                item.string("plugin", answer.plugin.name)
                item.string("verdict", answer.verdict.rawValue)
                line.bytes = item.closed()
            }
            line.bytes.append(UInt8(ascii: "]"))
            line.strings("ui", called.map(\.name))
            line.string("error", flight.errors.isEmpty ? nil : flight.errors.joined(separator: "; "))
            line.key("source")
            flight.message.source.appendJSON(to: &line.bytes)
        }
        recordFinished?(flight.message.source, status.rawValue, status == .failed ? flight.errors.joined(separator: "; ") : nil)
    }

    /// Exactly one route: the background plugins; or the first visible
    /// screen whose targets hold the message's target; or the top screen's
    /// mismatch handler. Returns the plugins called.
    private func runUIStage(_ message: Message) -> (Route, [PluginInstance]) {
        switch state {
        case .foreground(let screens) where !screens.isEmpty:
            let matched = message.withTarget { target in
                target.flatMap { target in screens.first { $0.claims(target) } }
            }
            if let screen = matched {
                guard screen.descriptor.raw.on_target != nil else { return (.target, []) }
                screen.onTarget(message.opaque)
                return (.target, [screen])
            }
            let top = screens[0]
            guard top.descriptor.raw.on_mismatch != nil else { return (.mismatch, []) }
            top.onMismatch(message.opaque)
            return (.mismatch, [top])
        default:
            for plugin in plugins.background { plugin.onBackground(message.opaque) }
            return (.background, plugins.background)
        }
    }

    /// Applies a host event and writes its report line.
    func apply(_ event: HostEvent, source: MessageSource) {
        var status = "applied"
        var problem: String?
        switch event {
        case .background:
            state = .background
        case .foreground(let names):
            if let unknown = names.first(where: { plugins.screens[$0] == nil }) {
                return reject(RecordError(event: event.word, reason: Self.unknownScreen(unknown, plugins)), source: source)
            }
            state = .foreground(screens: names.map { plugins.screens[$0]! })
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

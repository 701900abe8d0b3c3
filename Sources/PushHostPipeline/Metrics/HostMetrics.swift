#if canImport(Glibc)
import Glibc
#endif
import Prometheus
import PushHostRecords
import PushHostSystem
import Synchronization
import PushHostPlugins

/// What `--metrics` counts (the README lists every metric; docs/running.md, metrics and health), kept in
/// a Prometheus registry and rendered in its text format for `/metrics`.
///
/// The dispatch thread updates it without taking a lock or making a call:
/// what it counts per message (records, routes, data verdicts) goes to
/// cells of its own (``CounterCells``), a handler's duration too
/// (``HandlerDurations``), and a scrape adds what the cells gained to the
/// registry's counters before it renders them; rarer counts (host events,
/// actions, interceptor stops, workers) go to the registry's counters
/// directly, and the levels are published once a turn. A run without
/// `--metrics` has no `HostMetrics`, and each place that counts tests one
/// optional.
package final class HostMetrics: Sendable {
    package let registry = PrometheusCollectorRegistry()
    package let health = Health()
    /// The plugins' own metrics (`ph.metrics/1`), rendered after the host's.
    package let plugins = PluginMetrics()
    /// Records by where they came from and their status (cells 0 to 20),
    /// messages by route (21 to 24), then three cells a data plugin.
    let cells = CounterCells(count: routeCells + 4 + 3 * CrashJournal.maxPlugins)
    private static let routeCells = sourceKinds.count * statuses.count
    private static let verdictCells = routeCells + 4
    /// The registry's counter of each cell, and what the cell held at the last scrape.
    private let mirrors = Mutex<[(counter: Counter, synced: UInt64)?]>([])
    /// Host events (token, foreground, background) by kind and status.
    private let events: [Counter]
    /// Action lines by status.
    private let actions: [Counter]
    /// The report's writes, and the delivered store's.
    package let reportCounted: WriteCounters
    private let storeCounted: WriteCounters
    private let gauges: [Gauge]
    /// The handlers' durations, once the plugins are known.
    private let durations = Mutex<HandlerDurations?>(nil)
    /// The token file whose age `/metrics` tells, once the state folder is known.
    private let tokenFile = Mutex<String?>(nil)

    /// The statuses a record's line can have, in `records`' order.
    private static let statuses: [Status] = [.delivered, .suppressed, .undelivered, .failed, .rejected, .skipped, .expired]
    /// `statuses.count`, as a constant for the hot path.
    private static let statusCount = 7
    private static let sourceKinds = ["stdin", "spool", "plugin"]
    private static let eventKinds = ["token", "foreground", "background"]
    private static let eventStatuses = ["applied", "stored", "unchanged", "removed", "failed"]
    private static let actionStatuses: [ActionStatus] = [.delivered, .retained, .undelivered, .expired, .rejected, .failed]

    /// The gauges the dispatch thread publishes each turn, in `gauges`' order.
    package enum Backlog: Int, CaseIterable {
        case inFlight, held, pendingVerdicts, intakeQueue, retainedActions, spoolNew
    }

    package init() {
        precondition(Self.statuses.count == Self.statusCount)
        let registry = registry
        let records = Self.sourceKinds.flatMap { source in
            Self.statuses.map { status in
                registry.makeCounter(
                    descriptor: .pushhost("records_total", "Records with a report line, by where they came from and their status (host events and actions are counted apart)."),
                    labels: [("source", source), ("status", status.rawValue)])
            }
        }
        events = Self.eventKinds.flatMap { kind in
            Self.eventStatuses.map { status in
                registry.makeCounter(
                    descriptor: .pushhost("host_events_total", "Host events (token, foreground, background) by kind and status."),
                    labels: [("kind", kind), ("status", status)])
            }
        }
        actions = Self.actionStatuses.map { status in
            registry.makeCounter(descriptor: .pushhost("actions_total", "Action report lines by status."), labels: [("status", status.rawValue)])
        }
        let routes = ["background", "target", "mismatch", "none"].map { route in
            registry.makeCounter(descriptor: .pushhost("messages_routed_total", "Messages by the route of their report line (none: no UI stage, or nobody to call)."), labels: [("route", route)])
        }
        mirrors.withLock { $0 = (records + routes).map { ($0, 0) } }
        reportCounted = WriteCounters(
            writes: registry.makeCounter(descriptor: .pushhost("report_writes_total", "Writes of buffered report lines to --report.")),
            failures: registry.makeCounter(descriptor: .pushhost("report_write_failures_total", "Failed writes or fsyncs of the report (the first stops the intake).")))
        storeCounted = WriteCounters(
            writes: registry.makeCounter(descriptor: .pushhost("store_writes_total", "Writes of the delivered messages' store in the state folder.")),
            failures: registry.makeCounter(descriptor: .pushhost("store_write_failures_total", "Failed writes of the delivered messages' store.")))
        let levels: [(String, String)] = [
            ("records_in_flight", "Records under way: held by interceptors, queued behind a pending data verdict, or waiting for a worker's UI call."),
            ("messages_held", "Messages held by interceptors."),
            ("messages_pending", "Messages waiting for a data verdict (complete)."),
            ("intake_queued_records", "Records submitted by source plugins and not taken yet."),
            ("retained_actions", "Actions retained for a screen that is not visible."),
            ("spool_new_files", "Spool files in new/ not finished yet."),
        ]
        gauges = levels.map { registry.makeGauge(descriptor: .pushhost($0.0, $0.1)) }
        registry.makeGauge(
            descriptor: .pushhost("build_info", "The pushhost version and the plugin ABI it offers; always 1."),
            labels: [("version", PushHostVersion.current), ("abi", "\(HostABI.major).\(HostABI.minor)")]
        ).set(Int64(1))
        for result in ["ok", "refused"] { _ = reloads(result) }
    }

    // MARK: Reloads

    private func reloads(_ result: String) -> Counter {
        registry.makeCounter(
            descriptor: .pushhost("reloads_total", "Reloads of the plugins (SIGHUP), by result: ok, or refused (the plugins stayed as they were)."),
            labels: [("result", result)])
    }

    /// A reload ended: `ok`, or `refused`.
    package func reloaded(_ result: String) {
        reloads(result).increment()
    }

    /// The plugins loaded now, each with its generation (the number of
    /// the reload that created it; 0: the start); the series of `removed`
    /// plugins go.
    package func plugins(_ loaded: [(name: String, generation: Int)], removed: [String] = []) {
        let descriptor = MetricNameDescriptor.pushhost("plugin_generation", "Each loaded plugin's generation: the reload that created it (0: the start).")
        for name in removed { registry.unregisterGauge(registry.makeGauge(descriptor: descriptor, labels: [("plugin", name)])) }
        for (name, generation) in loaded { registry.makeGauge(descriptor: descriptor, labels: [("plugin", name)]).set(Int64(generation)) }
    }

    // MARK: Counting (dispatch thread)

    /// A record's report line: `status`, from a source of `kind` (`RecordSource.kindNumber`).
    func record(_ kind: Int, _ status: Status) {
        Self.count(kind, status, into: cells.adder)
    }

    /// A message's report line: `status`, `route`, from a source of `kind`.
    func message(_ kind: Int, _ status: Status, route: Route) {
        Self.count(kind, status, route: route, into: cells.adder)
    }

    /// `record`, through `cells` (`cells.adder`): what the dispatch thread keeps, so that nothing is retained per message.
    @inline(__always)
    static func count(_ kind: Int, _ status: Status, into cells: CounterCells.Adder) {
        cells.add(kind &* statusCount &+ statusIndex(status))
    }

    /// `message`, through `cells` (`cells.adder`).
    @inline(__always)
    static func count(_ kind: Int, _ status: Status, route: Route, into cells: CounterCells.Adder) {
        count(kind, status, into: cells)
        let index = switch route {
        case .background: 0
        case .target: 1
        case .mismatch: 2
        case .none: 3
        }
        cells.add(routeCells &+ index)
    }

    /// A host event's report line.
    func event(_ event: HostEvent, _ status: EventStatus) {
        let kind = switch event {
        case .token: 0
        case .foreground: 1
        case .background: 2
        case .action: -1
        }
        guard kind >= 0, let index = Self.eventStatuses.firstIndex(of: status.word) else { return }
        events[kind * Self.eventStatuses.count + index].increment()
    }

    /// What it counts of the actions: their lines, and the store's writes.
    var actionCounts: Actions.ActionCounts {
        let actions = actions
        return Actions.ActionCounts(line: { actions[Self.actionStatuses.firstIndex(of: $0)!].increment() }, store: storeCounted)
    }

    /// [dispatch thread, once a turn] Where the levels stand.
    package func publish(_ level: Backlog, _ value: Int) {
        gauges[level.rawValue].set(Int64(value))
    }

    @inline(__always)
    private static func statusIndex(_ status: Status) -> Int {
        switch status {
        case .delivered: 0
        case .suppressed: 1
        case .undelivered: 2
        case .failed: 3
        case .rejected: 4
        case .skipped: 5
        case .expired: 6
        }
    }

    // MARK: Series of the plugins

    /// The cells of the handlers' durations for `plugins` (by number),
    /// which `/metrics` renders from now on; at a reload, each plugin's
    /// series start from the last set's of the same name.
    package func handlerDurations(for plugins: [PluginInstance]) -> HandlerDurations {
        let byNumber = plugins.byNumber({ ($0.name, $0.descriptor.handlers.sorted { $0.rawValue < $1.rawValue }) }, none: ("", []))
        let made = HandlerDurations(plugins: byNumber, rate: TickClock.start())
        durations.withLock { last in
            // A reload's: each plugin's series go on from where they stood.
            if let last { made.carry(from: last) }
            last = made
        }
        return made
    }

    /// Where the data verdicts of the data plugins `names` (in load order)
    /// are counted: three cells each (continue, suppress, failed), from
    /// `first`. Asked again at a reload (on the dispatch thread, the cells'
    /// one writer), for the new data plugins.
    func dataVerdicts(of names: [String]) -> (cells: CounterCells.Adder, first: Int) {
        let counters = names.prefix(CrashJournal.maxPlugins).flatMap { plugin in
            ["continue", "suppress", "failed"].map { verdict in
                registry.makeCounter(
                    descriptor: .pushhost("data_verdicts_total", "Data verdicts by plugin and verdict (a pending verdict counts once it comes, or fails)."),
                    labels: [("plugin", plugin), ("verdict", verdict)])
            }
        }
        // A reload's: what the cells counted so far goes to the last plugins' counters first.
        syncCells()
        mirrors.withLock { mirrors in
            if mirrors.count > Self.verdictCells { mirrors.removeSubrange(Self.verdictCells...) }
            mirrors += [(counter: Counter, synced: UInt64)?](repeating: nil, count: Self.verdictCells - mirrors.count)
            mirrors += counters.enumerated().map { ($1, cells.value(Self.verdictCells + $0)) }
        }
        return (cells.adder, Self.verdictCells)
    }

    /// How long each data plugin's pending verdicts took to come.
    func pendingDurations(of names: [String]) -> [ValueHistogram] {
        names.map { plugin in
            registry.makeValueHistogram(
                descriptor: .pushhost("data_pending_seconds", "How long a pending data verdict took to come (or --data-timeout, when it did not)."),
                labels: [("plugin", plugin)], buckets: HandlerDurations.bounds.map { Double($0) / 1e9 })
        }
    }

    /// The counters of messages each interceptor stopped, suppressed and failed.
    func interceptorStops(of names: [String]) -> [String: (suppressed: Counter, failed: Counter)] {
        Dictionary(uniqueKeysWithValues: names.map { plugin in
            let make = { (verdict: String) in
                self.registry.makeCounter(
                    descriptor: .pushhost("interceptor_stops_total", "Messages an interceptor stopped, by plugin and verdict."),
                    labels: [("plugin", plugin), ("verdict", verdict)])
            }
            return (plugin, (make("suppress"), make("failed")))
        })
    }

    /// Tells the age of the token in `file` from now on.
    package func watchToken(_ file: String) {
        tokenFile.withLock { $0 = file }
    }

    // MARK: A scrape (the server's thread)

    /// Everything, in the Prometheus text format.
    package func render() -> [UInt8] {
        syncCells()
        updateTokenAge()
        var bytes = registry.emitToBuffer()
        if let durations = durations.withLock({ $0 }) {
            var text = ""
            durations.render(into: &text)
            bytes.append(contentsOf: text.utf8)
        }
        var text = ""
        plugins.render(into: &text)
        bytes.append(contentsOf: text.utf8)
        return bytes
    }

    /// Adds to each counter what its cell gained since the last scrape.
    private func syncCells() {
        mirrors.withLock { mirrors in
            for index in mirrors.indices {
                guard let (counter, synced) = mirrors[index] else { continue }
                let value = cells.value(index)
                guard value > synced else { continue }
                counter.increment(by: Int64(value - synced))
                mirrors[index] = (counter, value)
            }
        }
    }

    /// `pushhost_token_age_seconds`: since the token file was written; none without a token.
    private func updateTokenAge() {
        guard let file = tokenFile.withLock({ $0 }) else { return }
        let descriptor = MetricNameDescriptor.pushhost("token_age_seconds", "Seconds since the current token was stored (absent without a token).")
        var info = stat()
        guard stat(file, &info) == 0 else {
            registry.unregisterGauge(registry.makeGauge(descriptor: descriptor))
            return
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let age = Double(now.tv_sec - info.st_mtim.tv_sec) + Double(now.tv_nsec - info.st_mtim.tv_nsec) / 1e9
        registry.makeGauge(descriptor: descriptor).set(max(0, age))
    }
}

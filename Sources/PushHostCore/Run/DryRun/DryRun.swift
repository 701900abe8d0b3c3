#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import Logging
import PushHostIntake
import PushHostRecords
import PushHostSystem
import PushHostIsolation
import PushHostPlugins
import PushHostPort

/// `pushhost plugins --check`: each loadable plugin of a catalog created
/// as `run` creates it, then destroyed, and what became of each.
///
/// As in a run: each plugin gets its settings (its settings file, then
/// `--set`); one that the run would isolate is created in a worker behind
/// the same walls, all such workers started at once (a process plugin's
/// program, which must write its first line); the plugins are
/// created in load order and destroyed in reverse, those in workers first,
/// once all were created; a source is created and never started. A plugin
/// refused is logged as a run logs it (`refused plugin FILE: REASON`).
///
/// What differs: a refusal does not stop the others; nothing is read and no
/// report is written; what each plugin logs meanwhile is kept for the
/// listing (``CapturedLog``, ``WorkerOutput``); a plugin's standard output
/// goes to standard error, so that nothing it prints gets into the listing;
/// and the state directory is a throwaway one (``EphemeralState``), removed
/// at the end, so that a plugin that makes or writes its state folder
/// (`ph.state/1`) in `create` changes no real state. The real state is not
/// read either: `current_token` answers NULL.
package final class DryRun {
    /// What became of one loadable plugin.
    struct Outcome {
        /// Why it was refused, in the words a run logs, or nil when it was created and destroyed.
        let refusal: String?
        /// The log lines it wrote meanwhile; for one in a worker, every line its worker wrote.
        let log: [String]
    }

    private let catalog: PluginCatalog
    /// By the index of their entry in the catalog.
    private let outcomes: [Int: Outcome]
    /// The flags a run refuses (``PluginCatalog/strayFlags(overrides:isolation:)``).
    package let strayFlags: [String]

    /// How long the output of a worker that ended is read before the listing goes on without the rest.
    static let outputTimeout = 2.0

    /// Creates and destroys each loadable plugin of `catalog`, logging to `logger` what a run would.
    package init(catalog: PluginCatalog, logger: Logger) throws(SetupError) {
        self.catalog = catalog
        for entry in catalog.refused {
            logger.error("refused plugin \(entry.file): \(entry.refusal!)")
        }
        strayFlags = catalog.strayFlags(overrides: catalog.overrides, isolation: catalog.isolation)
        for problem in strayFlags { logger.error("\(problem)") }
        let state = try EphemeralState(logger: logger)
        defer { state.remove() }
        // A signal while the plugins are created ends the process: without the folder.
        _ = SetupSignals { state.remove() }
        let tokens = try TokenStore(directory: state.path, logger: logger)
        // Nothing a plugin submits is taken.
        let submissions = PluginSubmissions(limit: 1, maxBytes: 1)
        submissions.close()
        let listing = Self.setOutputAside()
        defer { Self.restoreOutput(listing) }
        outcomes = try Self.createAndDestroy(catalog, stateDirectory: state.path, tokens: tokens, submissions: submissions, logger: logger)
    }

    /// Points standard output at standard error, where what plugins print
    /// goes until ``restoreOutput(_:)``; a copy of the listing's standard output, or -1.
    private static func setOutputAside() -> Int32 {
        fflush(nil)
        // Close on exec: no worker gets it.
        let listing = fcntl(1, F_DUPFD_CLOEXEC, 0)
        if listing >= 0 { dup2(2, 1) }
        return listing
    }

    /// Points standard output back at `listing`, what plugins printed flushed first.
    private static func restoreOutput(_ listing: Int32) {
        fflush(nil)
        guard listing >= 0 else { return }
        dup2(listing, 1)
        close(listing)
    }

    /// The outcome of each loadable plugin of `catalog`, by entry index.
    private static func createAndDestroy(
        _ catalog: PluginCatalog, stateDirectory: String, tokens: TokenStore, submissions: PluginSubmissions, logger: Logger
    ) throws(SetupError) -> [Int: Outcome] {
        let isolation = catalog.isolation
        let loadable = catalog.entries.enumerated().compactMap { index, entry in
            (try? entry.outcome.get()).map { (index: index, file: entry.file, plugin: $0) }
        }
        let settings = loadable.map { $0.plugin.settings(with: catalog.overrides) }
        let logs = loadable.map { _ in CapturedLog() }
        let metrics = PluginMetrics()
        // The workers, all started at once, as a run starts them.
        var outputs: [WorkerOutput?] = []
        var workers: [(any RemotePlugin)?] = []
        let all = Workers()
        for (position, entry) in loadable.enumerated() {
            let name = entry.plugin.descriptor.name
            // A process plugin's program is started, and stopped, as a run does.
            if let program = entry.plugin.descriptor.process {
                let launch = isolation.launch(file: entry.file, program: program, settings: settings[position], stateDirectory: stateDirectory)
                outputs.append(nil)
                workers.append(ProcessPlugin(name: name, launch: launch, workers: all, logger: logger, log: logs[position]))
                continue
            }
            guard isolation.isolates(name, settings: settings[position]) else {
                outputs.append(nil)
                workers.append(nil)
                continue
            }
            let launch = isolation.launch(file: entry.file, name: name, settings: settings[position], stateDirectory: stateDirectory)
            let output = try WorkerOutput(plugin: name, log: logs[position])
            let spawned = Result { () throws(SetupError) in
                try WorkerProcess(
                    executable: launch.executable, arguments: launch.arguments, walled: launch.walled, bus: launch.bus, settings: launch.settings,
                    largestFrame: launch.largestFrame, plugin: name, submissions: submissions, metrics: metrics,
                    output: output)
            }
            outputs.append(output)
            workers.append(Worker(
                descriptor: entry.plugin.descriptor, launch: launch, workers: all, submissions: submissions, pluginMetrics: metrics, spawned: spawned,
                logger: logger))
        }
        var created: [PluginInstance] = []
        var refusals: [Int: String] = [:]
        for (position, entry) in loadable.enumerated() {
            let name = entry.plugin.descriptor.name
            let instance = PluginInstance(
                file: entry.file, descriptor: entry.plugin.descriptor,
                context: PluginContext(name: name, logger: logs[position].logger(label: name), tokens: tokens, submissions: submissions, metrics: metrics,
                    chain: DryRunChains.table),
                settings: PluginSettings(settings[position]), index: Int32(position), remote: workers[position])
            do {
                try create(instance)
                created.append(instance)
            } catch {
                // Its worker is gone: what it logged comes first, as the refusal says.
                outputs[position]?.finish(timeout: outputTimeout)
                refusals[position] = "\(error)"
                logger.error("refused plugin \(entry.file): \(error)")
            }
        }
        created.reversed().filter { $0.remote != nil }.forEach { $0.destroy() }
        created.reversed().filter { $0.remote == nil }.forEach { $0.destroy() }
        var outcomes: [Int: Outcome] = [:]
        for (position, entry) in loadable.enumerated() {
            outputs[position]?.finish(timeout: outputTimeout)
            outcomes[entry.index] = Outcome(refusal: refusals[position], log: logs[position].all)
        }
        return outcomes
    }

    /// Creates `instance` as a run does, and checks what a run checks of
    /// it then: the extensions it declares, and the tables of a source and
    /// an interceptor; destroys it when one of those fails.
    private static func create(_ instance: PluginInstance) throws {
        try instance.create()
        try instance.checkDeclaredExtensions()
        do {
            _ = try SourcePlugin(instance)
            _ = try InterceptorPlugin(instance, inbox: Inbox())
        } catch {
            instance.destroy()
            throw error
        }
    }

    /// What became of the plugin of the catalog's entry `index`; nil for one not created (refused before).
    func outcome(ofEntry index: Int) -> Outcome? {
        outcomes[index]
    }

    /// Whether every plugin was loaded, created and destroyed, and no flag would be refused.
    package var passed: Bool {
        catalog.refused.isEmpty && strayFlags.isEmpty && outcomes.values.allSatisfy { $0.refusal == nil }
    }

    /// The line that names every plugin refused (`2 of 3 plugins refused: broken (plugins/broken.so), plugins/bad.so`), or nil.
    package var summary: String? {
        let refused = catalog.entries.enumerated().compactMap { index, entry -> String? in
            if entry.refusal != nil { return entry.file }
            guard let outcome = outcomes[index], outcome.refusal != nil, let plugin = try? entry.outcome.get() else { return nil }
            return "\(plugin.descriptor.name) (\(entry.file))"
        }
        guard !refused.isEmpty else { return nil }
        return "\(refused.count) of \(catalog.entries.count) plugins refused: \(refused.joined(separator: ", "))"
    }
}

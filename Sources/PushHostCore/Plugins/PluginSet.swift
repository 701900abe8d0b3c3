import Logging
import PushHostIntake
import PushHostRecords
import PushHostSystem

/// The created plugins of one run, in load order, and who plays which role.
package final class PluginSet {
    let instances: [PluginInstance]
    let data: [PluginInstance]
    let background: [PluginInstance]
    let token: [PluginInstance]
    /// Screen plugins by name: the screens the app can show.
    let screens: [String: PluginInstance]
    /// The plugins that offer `ph.source/1`, in load order.
    let sources: [SourcePlugin]
    /// The workers of the isolated plugins.
    let workers = Workers()

    /// Loads, checks and creates the plugins in `catalog`.
    ///
    /// A refused plugin is logged with its file and reason; unless
    /// `skipBad` is set, any refusal is a setup error, raised before any
    /// plugin is created (or, for a failed `create`, after destroying the
    /// ones already created).
    init(
        catalog: PluginCatalog,
        overrides: [SettingOverride],
        skipBad: Bool,
        tokens: TokenStore,
        submissions: PluginSubmissions,
        isolation: IsolationOptions = IsolationOptions(),
        metrics: WorkerMetrics? = nil,
        pluginMetrics: PluginMetrics = PluginMetrics(),
        logger: Logger
    ) throws(SetupError) {
        workers.metrics = metrics
        for entry in catalog.refused {
            logger.error("refused plugin \(entry.file): \(entry.refusal!)")
        }
        if !skipBad && !catalog.refused.isEmpty {
            throw SetupError("\(catalog.refused.count) of \(catalog.entries.count) plugins refused (--skip-bad-plugins goes on without them)")
        }
        let loadable = catalog.entries.compactMap { entry in
            (try? entry.outcome.get()).map { (file: entry.file, plugin: $0) }
        }
        for problem in catalog.strayFlags(overrides: overrides, isolation: isolation) {
            guard skipBad else { throw SetupError(problem) }
            logger.warning("\(problem)")
        }

        // Each plugin's settings, and the isolated ones' workers, all started
        // at once (a start then takes about as long as the slowest create);
        // each is awaited in load order below.
        let settings = loadable.map { _, plugin in plugin.settings(with: overrides) }
        let launches = zip(loadable, settings).map { entry, settings in
            isolation.isolates(entry.plugin.descriptor.name, settings: settings)
                ? isolation.launch(file: entry.file, name: entry.plugin.descriptor.name, settings: settings, stateDirectory: tokens.directory) : nil
        }
        var spawned = zip(loadable, launches).map { entry, launch in
            launch.map { Worker.spawn($0, plugin: entry.plugin.descriptor.name, submissions: submissions, metrics: pluginMetrics) }
        }
        var created: [PluginInstance] = []
        for (position, (file, plugin)) in loadable.enumerated() {
            var worker: Worker?
            if let launch = launches[position] {
                worker = Worker(
                    descriptor: plugin.descriptor, plugin: Int32(created.count), launch: launch, workers: workers,
                    submissions: submissions, pluginMetrics: pluginMetrics, spawned: spawned[position], logger: logger)
            }
            let instance = PluginInstance(
                file: file,
                descriptor: plugin.descriptor,
                context: PluginContext(name: plugin.descriptor.name, logger: Logger(label: plugin.descriptor.name), tokens: tokens, submissions: submissions,
                    metrics: pluginMetrics),
                settings: PluginSettings(settings[position]),
                index: Int32(created.count),
                worker: worker
            )
            spawned[position] = nil
            do {
                try instance.create()
                try instance.checkDeclaredExtensions()
                created.append(instance)
                if let worker = instance.worker { workers.add(worker) }
            } catch {
                logger.error("refused plugin \(file): \(error)")
                if !skipBad {
                    // The workers started for the plugins after it are not awaited.
                    for case .success(let process)? in spawned { _ = Worker.killAndWait(process) }
                    created.reversed().forEach { $0.destroy() }
                    throw SetupError("plugin \(plugin.descriptor.name) could not be created")
                }
            }
        }
        instances = created
        data = created.filter { $0.roles.contains(.data) }
        background = created.filter { $0.roles.contains(.background) }
        token = created.filter { $0.roles.contains(.token) }
        var sources: [SourcePlugin] = []
        for plugin in created {
            do {
                if let source = try SourcePlugin(plugin) { sources.append(source) }
            } catch {
                created.reversed().forEach { $0.destroy() }
                throw error
            }
        }
        self.sources = sources
        screens = Dictionary(uniqueKeysWithValues: created.filter { $0.roles.contains(.screen) }.map { ($0.name, $0) })
    }

    /// Calls every plugin's `destroy`, in reverse load order: first those
    /// in workers (each worker then ends, by `deadline` at the latest, else
    /// by `--stop-timeout` from now, at least a second), then those in the
    /// host, each noted in `journal` as a call under way, for the watchdog.
    package func destroyAll(by deadline: UInt64? = nil, journal: CrashJournal? = nil) {
        // Every worker is asked at once and waited for against one deadline:
        // one that hangs in destroy (or lies about its calls) costs the stop
        // no more than the deadline, however many there are.
        let workers = instances.reversed().compactMap(\.worker)
        let stopping = workers.map { ($0, $0.beginStop()) }
        let by = deadline ?? MonotonicClock.now() &+ UInt64(max(workers.first?.stopTimeout ?? 0, 1) * 1e9)
        for case let (worker, process?) in stopping { worker.finishStop(process, by: by) }
        instances.reversed().filter { $0.worker != nil }.forEach { $0.destroy() }
        for instance in instances.reversed() where instance.worker == nil {
            journal?.enterStop(.destroy, plugin: instance.index)
            instance.destroy()
            journal?.leave()
        }
    }
}

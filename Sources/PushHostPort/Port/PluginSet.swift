import CPushHost
import Logging
import PushHostIntake
import PushHostRecords
import PushHostSystem
import PushHostPlugins

/// The created plugins of one run, in load order, and who plays which role.
package final class PluginSet {
    package let instances: [PluginInstance]
    package let data: [PluginInstance]
    package let background: [PluginInstance]
    package let token: [PluginInstance]
    /// Screen plugins by name: the screens the app can show.
    package let screens: [String: PluginInstance]
    /// The plugins that offer `ph.source/1`, in load order.
    package let sources: [SourcePlugin]
    /// Every plugin that runs elsewhere, together; nil when all run in the host.
    package let places: (any RemotePlaces)?

    /// Loads, checks and creates the plugins in `catalog`, each offered
    /// `chain` as its `ph.chain/1`.
    ///
    /// A refused plugin is logged with its file and reason; unless
    /// `skipBad` is set, any refusal is a setup error, raised before any
    /// plugin is created (or, for a failed `create`, after destroying the
    /// ones already created).
    package init(
        catalog: PluginCatalog,
        overrides: [SettingOverride],
        skipBad: Bool,
        tokens: TokenStore,
        submissions: PluginSubmissions,
        isolation: IsolationOptions = IsolationOptions(),
        launcher: (any RemoteLauncher)? = nil,
        pluginMetrics: PluginMetrics = PluginMetrics(),
        chain: UnsafePointer<ph_chain_api>,
        logger: Logger
    ) throws(SetupError) {
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

        // Each plugin's settings, and the ones elsewhere started all at once
        // (a start then takes about as long as the slowest create); each is
        // awaited in load order below.
        let settings = loadable.map { _, plugin in plugin.settings(with: overrides) }
        let remotes = zip(loadable, settings).map { entry, settings in
            launcher.flatMap { launcher in
                entry.plugin.descriptor.process != nil || isolation.isolates(entry.plugin.descriptor.name, settings: settings)
                    ? launcher.launch(file: entry.file, descriptor: entry.plugin.descriptor, settings: settings) : nil
            }
        }
        var created: [PluginInstance] = []
        for (position, (file, plugin)) in loadable.enumerated() {
            let instance = PluginInstance(
                file: file,
                descriptor: plugin.descriptor,
                context: PluginContext(name: plugin.descriptor.name, logger: Logger(label: plugin.descriptor.name), tokens: tokens, submissions: submissions,
                    metrics: pluginMetrics, chain: chain),
                settings: PluginSettings(settings[position]),
                index: Int32(created.count),
                remote: remotes[position]
            )
            do {
                try instance.create()
                try instance.checkDeclaredExtensions()
                created.append(instance)
                if let remote = instance.remote { launcher?.created(remote, plugin: instance.index) }
            } catch {
                logger.error("refused plugin \(file): \(error)")
                if !skipBad {
                    // The plugins started elsewhere after it are not awaited.
                    remotes[(position + 1)...].forEach { $0.map { launcher?.abandon($0) } }
                    created.reversed().forEach { $0.destroy() }
                    throw SetupError("plugin \(plugin.descriptor.name) could not be created")
                }
            }
        }
        places = launcher?.places
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
    /// elsewhere (each then ends, by `deadline` at the latest, else by
    /// `--stop-timeout` from now, at least a second), then those in the
    /// host, each noted in `journal` as a call under way, for the watchdog.
    /// True when one elsewhere was still in `destroy` at the deadline, and
    /// was killed.
    @discardableResult
    package func destroyAll(by deadline: UInt64? = nil, journal: CrashJournal? = nil) -> Bool {
        // Every one elsewhere is asked at once and waited for against one
        // deadline: one that hangs in destroy (or lies about its calls)
        // costs the stop no more than the deadline, however many there are.
        let remotes = instances.reversed().compactMap(\.remote)
        remotes.forEach { $0.beginStop() }
        let by = deadline ?? MonotonicClock.now() &+ UInt64(max(remotes.first?.stopTimeout ?? 0, 1) * 1e9)
        let killed = remotes.reduce(false) { $1.finishStop(by: by) || $0 }
        for instance in instances.reversed() where instance.remote == nil {
            journal?.enterStop(.destroy, plugin: instance.index)
            instance.destroy()
            journal?.leave()
        }
        return killed
    }
}

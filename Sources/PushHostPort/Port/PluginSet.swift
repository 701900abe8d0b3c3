import CPushHost
import Logging
import PushHostIntake
import PushHostRecords
import PushHostSystem
import PushHostPlugins

/// The created plugins of one run, in load order, and who plays which role.
/// A reload makes the next set from the last (``reloading(_:catalog:)``):
/// the plugins that did not change are the same instances in both.
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
    /// How many of those have a UI call under way: one count for every set of a run.
    package let uiCalls: UICallCount
    /// How many reloads made this set (0: the set a run started with).
    package let generation: Int
    /// What the set needs to make the next one.
    private let making: Making

    /// What a set is made with, kept for the next set a reload makes.
    private struct Making {
        let overrides: [SettingOverride]
        let skipBad: Bool
        let tokens: TokenStore
        let submissions: PluginSubmissions
        let isolation: IsolationOptions
        let launcher: (any RemoteLauncher)?
        let pluginMetrics: PluginMetrics
        let chain: UnsafePointer<ph_chain_api>
        let logger: Logger
    }

    /// Loads, checks and creates the plugins in `catalog`, each offered
    /// `chain` as its `ph.chain/1`.
    ///
    /// A refused plugin is logged with its file and reason; unless
    /// `skipBad` is set, any refusal is a setup error, raised before any
    /// plugin is created (or, for a failed `create`, after destroying the
    /// ones already created).
    package convenience init(
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
        let making = Making(
            overrides: overrides, skipBad: skipBad, tokens: tokens, submissions: submissions, isolation: isolation, launcher: launcher,
            pluginMetrics: pluginMetrics, chain: chain, logger: logger)
        try self.init(catalog: catalog, making: making, previous: nil)
    }

    /// The set a reload makes from `catalog`, read again: each plugin of
    /// this set whose ``PluginVersion`` is the same is kept as it is, the
    /// others are loaded and created anew, beside this set, which is not
    /// touched. What changed is in ``changes(from:)``.
    ///
    /// - Throws: when a plugin is refused or its `create` fails (with
    ///   `--skip-bad-plugins`, only a plugin whose file this set runs: a
    ///   new one is left out, as at a start), after destroying the ones
    ///   created for the new set: this set stays as it was.
    package func reloading(catalog: PluginCatalog) throws(SetupError) -> PluginSet {
        try PluginSet(catalog: catalog, making: making, previous: self)
    }

    private init(catalog: PluginCatalog, making: Making, previous: PluginSet?) throws(SetupError) {
        let logger = making.logger, launcher = making.launcher, isolation = making.isolation, skipBad = making.skipBad
        for entry in catalog.refused {
            logger.error("refused plugin \(entry.file): \(entry.refusal!)")
        }
        // At a reload, a running plugin's file that is refused refuses the set, whatever --skip-bad-plugins says.
        let running = Set(previous?.instances.map(\.file) ?? [])
        let fatal = catalog.refused.filter { !skipBad || running.contains($0.file) }
        if !fatal.isEmpty {
            throw SetupError(skipBad
                ? "plugin \(fatal[0].file), which runs, was refused: the plugins stay as they were"
                : "\(catalog.refused.count) of \(catalog.entries.count) plugins refused (--skip-bad-plugins goes on without them)")
        }
        let loadable = catalog.entries.compactMap { entry in
            (try? entry.outcome.get()).map { (file: entry.file, plugin: $0) }
        }
        for problem in catalog.strayFlags(overrides: making.overrides, isolation: isolation) {
            guard skipBad else { throw SetupError(problem) }
            logger.warning("\(problem)")
        }

        // Each plugin's settings and version; the ones a reload keeps; the
        // ones elsewhere started all at once (a start then takes about as
        // long as the slowest create), each awaited in load order below.
        let settings = loadable.map { _, plugin in plugin.settings(with: making.overrides) }
        let versions = zip(loadable, settings).map { entry, settings in
            PluginVersion(
                file: entry.file, descriptor: entry.plugin.descriptor, settings: settings,
                isolated: entry.plugin.descriptor.process != nil || isolation.isolates(entry.plugin.descriptor.name, settings: settings))
        }
        let kept: [PluginInstance?] = zip(loadable, versions).map { entry, version in
            previous?.instances.first { $0.name == entry.plugin.descriptor.name && $0.file == entry.file && $0.version == version }
        }
        let remotes = loadable.indices.map { position in
            kept[position] != nil ? nil : launcher.flatMap { launcher in
                versions[position].isolated
                    ? launcher.launch(file: loadable[position].file, descriptor: loadable[position].plugin.descriptor, settings: settings[position])
                    : nil
            }
        }
        // A new instance takes the lowest number neither set uses.
        var numbers = Set(previous?.instances.map(\.index) ?? [])
        numbers.formUnion(kept.compactMap { $0?.index })
        var made: [PluginInstance] = []
        var created: [PluginInstance] = []
        func undo() {
            for instance in made.reversed() {
                instance.destroy()
                if let remote = instance.remote { launcher?.retire(remote) }
            }
        }
        for (position, (file, plugin)) in loadable.enumerated() {
            if let instance = kept[position] {
                created.append(instance)
                continue
            }
            let number = (0...).first { !numbers.contains(Int32($0)) }.map(Int32.init)!
            var descriptor = plugin.descriptor
            if !versions[position].isolated, previous?.instances.contains(where: { $0.name == descriptor.name && $0.remote == nil }) == true {
                // Made again while its last instance lives: its library's globals are its own.
                var warned: Set<String> = []
                do {
                    descriptor = try PluginCatalog.open(file, warned: &warned, logger: logger, apart: true)
                } catch {
                    logger.error("refused plugin \(file): \(error)")
                    remotes[position...].forEach { $0.map { launcher?.abandon($0) } }
                    undo()
                    throw SetupError("plugin \(plugin.descriptor.name) could not be loaded again")
                }
            }
            let instance = PluginInstance(
                file: file,
                descriptor: descriptor,
                context: PluginContext(name: plugin.descriptor.name, logger: Logger(label: plugin.descriptor.name), tokens: making.tokens,
                    submissions: making.submissions, metrics: making.pluginMetrics, chain: making.chain),
                settings: PluginSettings(settings[position]),
                index: number,
                remote: remotes[position]
            )
            instance.version = versions[position]
            instance.generation = (previous?.generation ?? -1) + 1
            do {
                try instance.create()
                try instance.checkDeclaredExtensions()
                numbers.insert(number)
                made.append(instance)
                created.append(instance)
                if let remote = instance.remote { launcher?.created(remote, plugin: instance.index) }
            } catch {
                logger.error("refused plugin \(file): \(error)")
                if !skipBad || running.contains(file) {
                    // The plugins started elsewhere after it are not awaited.
                    remotes[(position + 1)...].forEach { $0.map { launcher?.abandon($0) } }
                    undo()
                    throw SetupError("plugin \(plugin.descriptor.name) could not be created")
                }
            }
        }
        var sources: [SourcePlugin] = []
        for plugin in created {
            do {
                if let source = try SourcePlugin(plugin) { sources.append(source) }
            } catch {
                undo()
                throw error
            }
        }
        self.making = making
        generation = previous.map { $0.generation + 1 } ?? 0
        places = created.contains { $0.remote != nil } ? launcher?.places : nil
        uiCalls = launcher?.uiCalls ?? previous?.uiCalls ?? UICallCount()
        instances = created
        data = created.filter { $0.roles.contains(.data) }
        background = created.filter { $0.roles.contains(.background) }
        token = created.filter { $0.roles.contains(.token) }
        self.sources = sources
        screens = Dictionary(uniqueKeysWithValues: created.filter { $0.roles.contains(.screen) }.map { ($0.name, $0) })
    }

    /// The plugins this set holds and `previous` does not: added, or new
    /// instances of changed ones.
    package func newInstances(since previous: PluginSet) -> [PluginInstance] {
        instances.filter { instance in !previous.instances.contains { $0 === instance } }
    }

    /// The plugins of `previous` this set does not hold: removed, or old
    /// instances of changed ones.
    package func retiredInstances(since previous: PluginSet) -> [PluginInstance] {
        previous.instances.filter { instance in !instances.contains { $0 === instance } }
    }

    /// What changed from `previous` to this set, by plugin name.
    package func changes(from previous: PluginSet) -> PluginChanges {
        var changes = PluginChanges()
        for instance in instances {
            guard let old = previous.instances.first(where: { $0.name == instance.name }) else {
                changes.added.append(instance.name)
                continue
            }
            if old === instance {
                changes.unchanged.append(instance.name)
            } else if let new = instance.version, let before = old.version {
                changes.changed.append((instance.name, old.file != instance.file ? "file" : new.change(from: before) ?? "file"))
            }
        }
        changes.removed = previous.instances.map(\.name).filter { name in !instances.contains { $0.name == name } }
        return changes
    }

    /// Calls every plugin's `destroy`, in reverse load order: first those
    /// elsewhere (each then ends, by `deadline` at the latest, else by
    /// `--stop-timeout` from now, at least a second), then those in the
    /// host, each noted in `journal` as a call under way, for the watchdog.
    /// True when one elsewhere was still in `destroy` at the deadline, and
    /// was killed.
    @discardableResult
    package func destroyAll(by deadline: UInt64? = nil, journal: CrashJournal? = nil) -> Bool {
        destroy(instances, by: deadline, journal: journal)
    }

    /// Destroys `instances` (of this set, or of the last one: a reload
    /// retires them), as ``destroyAll(by:journal:)`` destroys them all; with
    /// `retiring`, those elsewhere are no longer watched once ended.
    @discardableResult
    package func destroy(_ instances: [PluginInstance], by deadline: UInt64? = nil, journal: CrashJournal? = nil, retiring: Bool = false) -> Bool {
        // Every one elsewhere is asked at once and waited for against one
        // deadline: one that hangs in destroy (or lies about its calls)
        // costs the stop no more than the deadline, however many there are.
        let remotes = instances.reversed().compactMap(\.remote)
        remotes.forEach { $0.beginStop() }
        let by = deadline ?? MonotonicClock.now() &+ UInt64(max(remotes.first?.stopTimeout ?? 0, 1) * 1e9)
        var killed = false
        for remote in remotes {
            killed = remote.finishStop(by: by) || killed
            if retiring { making.launcher?.retire(remote) }
        }
        for instance in instances.reversed() where instance.remote == nil {
            journal?.enterStop(.destroy, plugin: instance.index)
            instance.destroy()
            journal?.leave()
        }
        return killed
    }
}

import Logging
import PushHostIntake
import PushHostPipeline
import PushHostPlugins
import PushHostPort
import PushHostRecords
import PushHostSystem

/// A reload (SIGHUP, `systemctl reload`; docs/running.md, reloading): the
/// plugins are read again and the next set is made beside the running one
/// (the plugins that did not change are the same instances in both). Then
/// the host takes no new record until the records under way have ended
/// with the set they began with, switches the stages to the next set, and
/// takes records again. A set that cannot be made changes nothing.
extension Host: Reloader {
    /// The next set, made and waiting for the switch.
    struct Reload {
        let next: PluginSet
        let stages: Pipeline.Stages
        /// When the signal was taken (monotonic ns).
        let began: UInt64
    }

    /// Makes the next set and stops the sources of the plugins it drops;
    /// true when the switch now waits for the records under way to end,
    /// false when the reload was refused (logged, and nothing changed).
    func beginReload() -> Bool {
        let began = MonotonicClock.now()
        notifier?.reloading(status: "reloading: reading the plugins again")
        let next: PluginSet
        let stages: Pipeline.Stages
        do {
            next = try plugins.reloading(catalog: try rescan())
            do {
                stages = try pipeline.stages(of: next)
            } catch {
                destroy(next.newInstances(since: plugins))
                throw error
            }
        } catch {
            logger.error("reload refused: \(error); the plugins stay as they were")
            options.metrics?.reloaded("refused")
            notifier?.ready(status: readyStatus(), progress: Self.progress(of: pipeline.report))
            return false
        }
        reload = Reload(next: next, stages: stages, began: began)
        // A source that goes stops now; what it submitted and the host did
        // not take goes back to it, as at a stop.
        let going = Set(next.retiredInstances(since: plugins).map(\.index))
        for source in started where going.contains(source.index) {
            // Closed first, as at a stop: a submit that waits for room ends, and stop may wait for it.
            submissions.close(plugin: source.name)
            source.stop(journal: journal)
            submissions.giveBack(from: source.name, to: pipeline)
        }
        started.removeAll { going.contains($0.index) }
        return true
    }

    /// Nothing is under way: the stages call the next set from now on, the
    /// plugins it dropped are destroyed, and its new sources start.
    func switchReload() {
        guard let reload else { return }
        self.reload = nil
        let previous = plugins
        let changes = reload.next.changes(from: previous)
        let gone = pipeline.install(reload.stages, journal: journal)
        plugins = reload.next
        if let metrics = options.metrics {
            journal.durations = metrics.handlerDurations(for: plugins.instances).observer
            metrics.plugins(plugins.instances.map { ($0.name, $0.generation) }, removed: changes.removed)
        }
        destroy(plugins.retiredInstances(since: previous))
        let running = Set(started.map(\.index))
        for source in plugins.sources where !running.contains(source.index) {
            submissions.reopen(plugin: source.name)
            guard source.start() else {
                logger.error("plugin \(source.name): its source did not start after the reload (start returned -1); it produces nothing")
                continue
            }
            started.append(source)
        }
        if !gone.isEmpty {
            logger.warning("reload: the visible screens \(gone.joined(separator: ", ")) are no longer loaded, and left the stack")
        }
        let paused = Double(MonotonicClock.now() &- reload.began) / 1e6
        logger.notice("reloaded: \(changes.summary) (records waited \(Self.milliseconds(paused)))")
        options.metrics?.reloaded("ok")
        notifier?.ready(status: readyStatus(), progress: Self.progress(of: pipeline.report))
    }

    /// A stop came before the switch: the next set's new plugins are
    /// destroyed, and the stop goes on with the set that ran.
    func abandonReload() {
        guard let reload else { return }
        self.reload = nil
        destroy(reload.next.newInstances(since: plugins))
        logger.warning("reload abandoned: the host stops")
    }

    /// Destroys `instances`, new ones the next set will not use or old ones
    /// it dropped, its workers given `--stop-timeout` to end. Meanwhile the
    /// journal names them too (their numbers are no running plugin's), so
    /// that a `destroy` that hangs is named by the watchdog.
    private func destroy(_ instances: [PluginInstance]) {
        journal.name(plugins: (plugins.instances + instances).byNumber(\.name, none: ""))
        if plugins.destroy(instances, journal: journal, retiring: true) {
            logger.warning("reload: a plugin elsewhere was still in destroy at --stop-timeout \(options.stopTimeout)s, and was killed")
        }
        journal.name(plugins: plugins.instances.byNumber(\.name, none: ""))
    }

    /// `0.8 ms`, `12 ms`.
    private static func milliseconds(_ value: Double) -> String {
        value < 10 ? "\((value * 10).rounded() / 10) ms" : "\(Int(value.rounded())) ms"
    }
}

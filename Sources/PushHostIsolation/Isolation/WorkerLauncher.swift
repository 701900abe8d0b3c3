import Logging
import PushHostIntake
import PushHostPlugins
import PushHostPort

/// Starts the isolated plugins of a plugin set in workers
/// (``RemoteLauncher``), and holds the ones created together (``Workers``).
package final class WorkerLauncher: RemoteLauncher {
    private let isolation: IsolationOptions
    private let stateDirectory: String
    private let submissions: PluginSubmissions
    private let pluginMetrics: PluginMetrics
    private let logger: Logger
    private let workers = Workers()
    /// The workers and programs launched and not created yet.
    private var launched: [AnyObject] = []

    package init(
        isolation: IsolationOptions, stateDirectory: String, submissions: PluginSubmissions, metrics: WorkerMetrics?, pluginMetrics: PluginMetrics,
        logger: Logger
    ) {
        self.isolation = isolation
        self.stateDirectory = stateDirectory
        self.submissions = submissions
        self.pluginMetrics = pluginMetrics
        self.logger = logger
        workers.metrics = metrics
    }

    package func launch(file: String, descriptor: PluginDescriptor, settings: [String: String]) -> any RemotePlugin {
        if let program = descriptor.process {
            let launch = isolation.launch(file: file, program: program, settings: settings, stateDirectory: stateDirectory)
            let plugin = ProcessPlugin(name: descriptor.name, launch: launch, workers: workers, logger: logger)
            launched.append(plugin)
            return plugin
        }
        let launch = isolation.launch(file: file, name: descriptor.name, settings: settings, stateDirectory: stateDirectory)
        let worker = Worker(
            descriptor: descriptor, launch: launch, workers: workers, submissions: submissions, pluginMetrics: pluginMetrics,
            spawned: Worker.spawn(launch, plugin: descriptor.name, submissions: submissions, metrics: pluginMetrics), logger: logger)
        launched.append(worker)
        return worker
    }

    package func created(_ remote: any RemotePlugin, plugin: Int32) {
        guard let position = launched.firstIndex(where: { $0 === remote }) else { return }
        switch launched.remove(at: position) {
        case let worker as Worker:
            worker.plugin = plugin
            workers.add(worker)
        case let program as ProcessPlugin:
            program.plugin = plugin
            workers.add(program)
        default:
            break
        }
    }

    package func abandon(_ remote: any RemotePlugin) {
        guard let position = launched.firstIndex(where: { $0 === remote }) else { return }
        switch launched.remove(at: position) {
        case let worker as Worker: worker.abandon()
        case let program as ProcessPlugin: program.abandon()
        default: break
        }
    }

    package func retire(_ remote: any RemotePlugin) {
        workers.remove(remote)
    }

    package var places: (any RemotePlaces)? { workers.isEmpty ? nil : workers }

    package var uiCalls: UICallCount { workers.uiCalls }
}

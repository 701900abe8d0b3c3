import Logging
import PushHostPort
import PushHostRecords
import PushHostSystem

extension Pipeline {
    /// The pipeline over `plugins`, every stage built and wired to where
    /// its plugins run: the one way to build one, for the host and for the
    /// tests. With `metrics` (`--metrics`), the stages count into it.
    package static func make(
        plugins: PluginSet, tokens: TokenStore, report: Report, options: RunOptions, journal: CrashJournal, logger: Logger
    ) throws(SetupError) -> Pipeline {
        let metrics = options.metrics
        let scheduler = CallScheduler(places: plugins.places, uiCalls: plugins.uiCalls)
        let interceptors = try Interceptors(plugins: plugins, timeout: options.dataTimeout, journal: journal, logger: logger)
        let app = try AppState(plugins: plugins, scheduler: scheduler, tokens: tokens, foreground: options.foreground, journal: journal, logger: logger)
        let actions = try Actions(
            plugins: plugins, directory: tokens.directory, storeLimit: options.storeLimit, storeBytes: options.storeBytes, retainFor: options.retainFor,
            platform: options.platform, targetKey: options.targetKey, counted: metrics?.actionCounts, scheduler: scheduler, journal: journal,
            logger: logger)
        let names = plugins.data.map(\.name)
        let dataStage = DataStage(
            plugins: plugins, timeout: options.dataTimeout, verdictCells: metrics?.dataVerdicts(of: names), pendingDurations: metrics?.pendingDurations(of: names),
            journal: journal, logger: logger)
        // What comes back from elsewhere goes to the stages that wait for it
        // (held there without a reference, until the pipeline goes).
        plugins.places?.verdicts = dataStage
        plugins.places?.turns = interceptors
        return Pipeline(
            interceptors: interceptors, dataStage: dataStage, places: plugins.places, scheduler: scheduler,
            route: UIRoute(plugins: plugins, scheduler: scheduler, journal: journal), app: app, actions: actions, report: report, options: options,
            handlesReachPlugins: plugins.instances.contains { $0.remote == nil }, logger: logger)
    }
}

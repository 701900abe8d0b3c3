import PushHostPort
import PushHostPlugins
import PushHostRecords
import PushHostSystem

extension Pipeline {
    /// What the stages need of a plugin set, made from it before it is
    /// used: a reload makes it while the last set still runs, and a set
    /// whose stages cannot be made is refused then, with nothing changed.
    package struct Stages {
        let plugins: PluginSet
        let interceptors: [InterceptorPlugin]
    }

    /// The stages of `plugins`.
    ///
    /// - Throws: what the stages refuse of it (an interceptor's table without `intercept`).
    package func stages(of plugins: PluginSet) throws(SetupError) -> Stages {
        Stages(plugins: plugins, interceptors: try interceptors.interceptors(of: plugins))
    }

    /// Calls the plugins of `stages` from now on. Nothing may be under way
    /// (``isIdle``): every record that began met the last set, and every
    /// later one meets this one. The visible screens stay; the names of
    /// visible screens no longer loaded, which leave them, are returned.
    package func install(_ stages: Stages, journal: CrashJournal) -> [String] {
        precondition(isIdle, "Pipeline: a plugin set installed while records are under way")
        let plugins = stages.plugins
        scheduler.use(places: plugins.places)
        if let places, places !== plugins.places {
            places.verdicts = nil
            places.turns = nil
        }
        places = plugins.places
        places?.verdicts = dataStage
        places?.turns = interceptors
        interceptors.use(stages.interceptors)
        let names = plugins.data.map(\.name)
        dataStage.use(plugins, verdictCells: metrics?.dataVerdicts(of: names), pendingDurations: metrics?.pendingDurations(of: names))
        reportNames = ReportNames(data: names)
        interceptorStops = metrics?.interceptorStops(of: interceptors.names) ?? [:]
        route.use(plugins)
        actions.use(plugins)
        handlesReachPlugins = plugins.instances.contains { $0.remote == nil }
        // Records sized for the last set's data plugins go.
        current = InFlight(dataPlugins: dataStage.count)
        while spare.popLast() != nil {}
        return app.use(plugins)
    }
}

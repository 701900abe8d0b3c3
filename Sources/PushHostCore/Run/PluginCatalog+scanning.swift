import Logging
import PushHostIsolation
import PushHostPlugins

extension PluginCatalog {
    /// The catalog of `paths` as a run reads it: the files `isolation`
    /// isolates are read in workers, behind their walls (``PluginScans``).
    package static func scanning(
        paths: [String], isolation: IsolationOptions = IsolationOptions(), overrides: [SettingOverride] = [], logger: Logger = Logger(label: "pushhost")
    ) -> PluginCatalog {
        PluginCatalog(paths: paths, isolation: isolation, overrides: overrides, scan: PluginScans.run, logger: logger)
    }
}

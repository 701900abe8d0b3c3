import Logging

/// The host of one run: the created plugins, and (as input arrives) the
/// dispatch of every record to them.
public final class PluginHost {
    let plugins: PluginSet
    let logger: Logger

    /// Loads and creates the plugins; any refusal is a `SetupError` unless
    /// `skipBadPlugins` is set.
    public init(
        catalog: PluginCatalog,
        overrides: [SettingOverride],
        skipBadPlugins: Bool,
        tokens: TokenStore,
        logger: Logger
    ) throws(SetupError) {
        self.logger = logger
        plugins = try PluginSet(catalog: catalog, overrides: overrides, skipBad: skipBadPlugins, tokens: tokens, logger: logger)
    }

    /// Calls every plugin's `destroy`.
    public func shutdown() {
        plugins.destroyAll()
    }
}

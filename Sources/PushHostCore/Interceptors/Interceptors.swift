import CPushHost
import Logging

/// The interceptor stage, between the intake and the data stage (SPEC
/// section 11): the plugins that offer `ph.interceptor/1`, in load order.
///
/// This host does not run interceptors yet, so every message passes
/// straight on to the data stage; a plugin that offers one is told so at
/// start, instead of being silently ignored.
struct Interceptors {
    /// The plugins offering `ph.interceptor/1`, in load order.
    let plugins: [String]

    init(plugins: PluginSet, logger: Logger) {
        self.plugins = plugins.instances.filter { $0.plugInExtension(PH_EXT_INTERCEPTOR) != nil }.map(\.name)
        for name in self.plugins {
            logger.warning("plugin \(name) offers \(PH_EXT_INTERCEPTOR), which this host does not run yet: its messages go straight to the data stage")
        }
    }
}

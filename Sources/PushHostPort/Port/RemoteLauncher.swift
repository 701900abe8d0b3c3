import PushHostPlugins

/// Starts the plugins of a set that run elsewhere (in workers), and holds
/// them together once created.
package protocol RemoteLauncher {
    /// Begins to start the plugin at `file` elsewhere, with `settings`: its
    /// remote plugin, whose `start` awaits it. Every one is launched before
    /// the first is awaited.
    func launch(file: String, descriptor: PluginDescriptor, settings: [String: String]) -> any RemotePlugin
    /// `remote`, the plugin numbered `plugin`, was created.
    func created(_ remote: any RemotePlugin, plugin: Int32)
    /// Ends `remote`, launched and never awaited (the set was refused).
    func abandon(_ remote: any RemotePlugin)
    /// `remote`, created and then stopped (a reload retired it), is no longer watched.
    func retire(_ remote: any RemotePlugin)
    /// How many processes have a UI call under way, whichever they are.
    var uiCalls: UICallCount { get }
    /// Every plugin created elsewhere; nil when there is none.
    var places: (any RemotePlaces)? { get }
}

import CPushHost

/// A part a plugin plays; its roles are the handlers its descriptor fills in.
package enum PluginRole: String, CaseIterable, Sendable {
    /// `on_data`: the data stage, before any UI handler.
    case data
    /// `on_background`: the app is in the background.
    case background
    /// `on_target` and/or `on_mismatch`: a screen, with the targets it matches.
    case screen
    /// `on_token`: a new registration token.
    case token
    /// `on_action`: a person acted on a delivered message's notification (ABI 1.1).
    case action

    /// The roles a descriptor's handlers give, in the order above.
    static func roles(of plugin: ph_plugin) -> [PluginRole] {
        var roles: [PluginRole] = []
        if plugin.on_data != nil { roles.append(.data) }
        if plugin.on_background != nil { roles.append(.background) }
        if plugin.on_target != nil || plugin.on_mismatch != nil { roles.append(.screen) }
        if plugin.on_token != nil { roles.append(.token) }
        if plugin.on_action != nil { roles.append(.action) }
        return roles
    }
}

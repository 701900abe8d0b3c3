import CPushHost
import PushHostRecords

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
        roles(of: PluginHandler.filled(in: plugin))
    }

    /// The roles that `handlers` give, in the order above.
    package static func roles(of handlers: Set<PluginHandler>) -> [PluginRole] {
        var roles: [PluginRole] = []
        if handlers.contains(.onData) { roles.append(.data) }
        if handlers.contains(.onBackground) { roles.append(.background) }
        if handlers.contains(.onTarget) || handlers.contains(.onMismatch) { roles.append(.screen) }
        if handlers.contains(.onToken) { roles.append(.token) }
        if handlers.contains(.onAction) { roles.append(.action) }
        return roles
    }
}

extension PluginHandler {
    /// The handlers of a descriptor, in the order of `ph_plugin`.
    package static let descriptorHandlers: [PluginHandler] = [.onData, .onBackground, .onTarget, .onMismatch, .onToken, .onAction]

    /// The handlers that `plugin` fills in.
    static func filled(in plugin: ph_plugin) -> Set<PluginHandler> {
        var handlers: Set<PluginHandler> = []
        if plugin.on_data != nil { handlers.insert(.onData) }
        if plugin.on_background != nil { handlers.insert(.onBackground) }
        if plugin.on_target != nil { handlers.insert(.onTarget) }
        if plugin.on_mismatch != nil { handlers.insert(.onMismatch) }
        if plugin.on_token != nil { handlers.insert(.onToken) }
        if plugin.on_action != nil { handlers.insert(.onAction) }
        return handlers
    }
}

extension PluginDescriptor {
    /// The roles `pushhost plugins` lists: those of the handlers, then
    /// those the declared extensions give (`interceptor`, `source`, `state`).
    package var listedRoles: [String] {
        let declared: [(id: String, role: String)] = [(PH_EXT_INTERCEPTOR, "interceptor"), (PH_EXT_SOURCE, "source"), (PH_EXT_STATE, "state")]
        return roles.map(\.rawValue) + declared.filter { extensions?.contains($0.id) == true }.map(\.role)
    }
}

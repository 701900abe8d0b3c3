/// Whether the app is in the background, or in the foreground with its
/// visible screens, top first.
enum AppState {
    case background
    case foreground(screens: [PluginInstance])
}

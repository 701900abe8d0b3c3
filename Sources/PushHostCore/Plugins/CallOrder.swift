/// What the UI stage and the app state ask of the plugins that run in
/// worker processes, without knowing that workers exist. UI calls keep the
/// order of the messages across processes: a call that runs in one process
/// first waits for the UI calls still under way in another, so a message's
/// UI handlers never run before those of the message before it.
protocol CallOrder: AnyObject {
    /// Before the UI handler of the plugin numbered `plugin` is called: for
    /// a plugin that runs in the host, the UI calls under way in workers have ended.
    func beforeCall(ofPlugin plugin: Int32)

    /// Whether a UI call is under way in a worker.
    var hasUIUnderWay: Bool { get }

    /// Before a route calls the plugins numbered `plugins`, while a UI call
    /// is under way: unless they all run in the one worker whose UI calls
    /// are under way, and so keep their order there, those calls have ended.
    func beforeRoute(calling plugins: [Int32])

    /// The token changed: the isolated plugins' `current_token` answers it.
    func tokenChanged(to token: String)

    /// Why a token call that went to a worker failed, since the last time, if one did.
    func takeProblem() -> String?
}

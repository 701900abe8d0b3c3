import PushHostPlugins
import PushHostSystem
/// Every plugin that runs elsewhere than in the host, together, as the
/// pipeline drives them from the dispatch thread: what they answered comes
/// in through here, and the one wait across processes is here, for the
/// scheduler (``CallScheduler``) alone to use.
@usableFromInline package protocol RemotePlaces: AnyObject {
    /// Where data verdicts that come later go, and the turns of interceptors.
    var verdicts: (any VerdictTaker)? { get set }
    var turns: (any TurnTaker)? { get set }

    /// How many of them have a UI call under way.
    var uiCalls: UICallCount { get }
    /// Whether answers came that are not taken yet.
    var haveAnswers: Bool { get }
    /// Takes what they answered, and restarts the ones whose backoff ended.
    func takeAnswers()
    /// Sends what was posted.
    func flush()
    /// Watches for their answers while the dispatch thread sleeps (`woken`
    /// runs when some came), and wakes it for a restart that is due.
    func addWaits(to waits: inout PollSet, woken: @escaping () -> Void)

    /// Sends what was posted, and waits until `done` (answers taken
    /// meanwhile, data verdicts kept for the next ``takeAnswers()``).
    func wait(until done: () -> Bool)
    /// Sends what was posted, and waits until none but `except` has a UI call under way.
    func waitForUICalls(except: (any RemotePlugin)?)
    /// Sends what was posted, and waits until every call posted ended
    /// (data calls included).
    func waitForAllCalls()
    /// At a stop's deadline: ends every call under way; true when one was.
    /// A UI call so ended gives its message up (``Message/isGivenUp``).
    func endCallsUnderWay() -> Bool

    /// The token changed: their `current_token` answers it.
    func tokenChanged(to token: String)
    /// Why a token call failed since the last time, if one did.
    func takeProblem() -> String?
}

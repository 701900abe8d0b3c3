import PushHostPlugins
/// The order of calls across processes, kept in one place for the whole
/// pipeline. UI calls keep the order of the messages: a call into one
/// process first waits for the UI calls under way in any other, so a
/// message's UI handlers never run before those of the message before it,
/// while calls into the process that is busy go on at once. A host event
/// waits for every call before it.
///
/// With every plugin in the host there is nothing to order: each check is
/// one flag.
@usableFromInline package final class CallScheduler {
    /// The plugins elsewhere (a reload changes them: ``use(places:)``).
    @usableFromInline private(set) var places: (any RemotePlaces)?
    /// Whether any plugin runs elsewhere.
    @usableFromInline package private(set) var isOrdered: Bool
    /// How many processes have a UI call under way: the one count of the
    /// run, whichever plugins run elsewhere.
    @usableFromInline let uiCalls: UICallCount

    package init(places: (any RemotePlaces)?, uiCalls: UICallCount) {
        self.places = places
        isOrdered = places != nil
        self.uiCalls = uiCalls
    }

    /// Orders the calls of `places` from now on (a reload's plugins; nothing is under way).
    package func use(places: (any RemotePlaces)?) {
        self.places = places
        isOrdered = places != nil
    }

    /// Before `handler` is called: the UI calls under way in other processes have ended.
    @inlinable @inline(__always)
    package func beforeCall(_ handler: Handler) {
        guard uiCalls.mustWait(for: handler.remote?.object) else { return }
        places!.waitForUICalls(except: handler.remote?.plugin)
    }

    /// Waits for the end of the call of `ticket`.
    package func await(_ ticket: Ticket) {
        places?.wait { ticket.hasEnded }
    }

    /// Whether a UI call is under way elsewhere.
    package var hasUIUnderWay: Bool { uiCalls.busy > 0 }

    /// Before what calls handlers in the host outside the UI route (a host
    /// event): no UI call is under way elsewhere.
    package func settleUI() {
        guard hasUIUnderWay else { return }
        places!.waitForUICalls(except: nil)
    }

    /// Before a host event that comes behind messages whose data stages are
    /// under way elsewhere: every call posted ended.
    package func settleAll() {
        places?.waitForAllCalls()
    }

    /// The token changed: the plugins elsewhere learn it.
    package func tokenChanged(to token: String) {
        places?.tokenChanged(to: token)
    }

    /// Why a token call elsewhere failed, since the last time, if one did.
    package func takeProblem() -> String? {
        places?.takeProblem()
    }
}

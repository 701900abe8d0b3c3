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
    @usableFromInline let places: (any RemotePlaces)?
    /// Whether any plugin runs elsewhere.
    @usableFromInline package let isOrdered: Bool
    @usableFromInline let uiCalls: UICallCount

    package init(places: (any RemotePlaces)?) {
        self.places = places
        isOrdered = places != nil
        uiCalls = places?.uiCalls ?? UICallCount()
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

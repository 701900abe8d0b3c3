import Dispatch

extension Task where Success == Void, Failure == Never {
    /// Blocks the calling thread (the host's, never one of Swift's own
    /// pool) until the task has ended.
    func waitForEnd() {
        let ended = DispatchSemaphore(value: 0)
        Task<Void, Never>.detached {
            await self.value
            ended.signal()
        }
        ended.wait()
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// What one turn of the run loop waits on: descriptors, each with the call
/// that takes its work once it is readable, and the soonest time a part of
/// the host wants a turn anyway.
///
///     var waits = PollSet()
///     pipeline.addWaits(to: &waits)
///     waits.watch(shutdownFD) { beginStop() }
///     waits.poll()
@usableFromInline package struct PollSet {
    private var descriptors: [pollfd] = []
    private var takers: [() -> Void] = []
    /// Milliseconds until the soonest deadline, -1 for none.
    private(set) var timeout: Int32 = -1

    package init() {}

    /// Polls `fd` this turn; `take` runs when it is readable (or has
    /// another of `events`: `POLLOUT`, writable).
    package mutating func watch(_ fd: Int32, for events: Int16 = Int16(POLLIN), _ take: @escaping () -> Void) {
        descriptors.append(pollfd(fd: fd, events: events, revents: 0))
        takers.append(take)
    }

    /// Wakes the loop in `milliseconds` at the latest (-1: no deadline).
    package mutating func wake(in milliseconds: Int32) {
        timeout = PollWait.sooner(timeout, milliseconds)
    }

    /// Waits until a descriptor is readable or the timeout passes, then runs
    /// the takers of the readable ones, in the order they were watched.
    package mutating func poll() {
        _ = Glibc.poll(&descriptors, nfds_t(descriptors.count), timeout)
        for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
            takers[index]()
        }
    }
}

/// A part of the host that the run loop waits on: it says what to poll,
/// what to do when that is readable, and when it wants a turn anyway.
package protocol Awaited: AnyObject {
    func addWaits(to waits: inout PollSet)
}

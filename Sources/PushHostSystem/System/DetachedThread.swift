#if canImport(Glibc)
import Glibc
#endif

/// A POSIX thread of the host's own (a reader, a relay, a watchdog), which
/// runs `body` and ends with it; nothing joins it.
package enum DetachedThread {
    private final class Body {
        let run: () -> Void

        init(_ run: @escaping () -> Void) {
            self.run = run
        }
    }

    /// Starts the thread: 0, or the error `pthread_create` gave.
    package static func start(_ body: @escaping () -> Void) -> Int32 {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard started == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return started
        }
        pthread_detach(thread)
        return 0
    }

    /// Starts the thread, or stops the process: the host cannot go on without it.
    package static func startOrFail(_ body: @escaping () -> Void) {
        let started = start(body)
        precondition(started == 0, "pthread_create: \(String(cString: strerror(started)))")
    }
}

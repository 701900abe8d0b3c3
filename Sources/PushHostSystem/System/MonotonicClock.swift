#if canImport(Glibc)
import Glibc
#endif

/// `CLOCK_MONOTONIC` in nanoseconds: the clock of every deadline the host keeps.
package enum MonotonicClock {
    package static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        // Never negative: no check.
        return UInt64(truncatingIfNeeded: time.tv_sec) &* 1_000_000_000 &+ UInt64(truncatingIfNeeded: time.tv_nsec)
    }

    /// The same clock at the last tick (`CLOCK_MONOTONIC_COARSE`), a few
    /// milliseconds behind at most; about 6 ns a read against 35.
    @inline(__always)
    package static func coarse() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// Milliseconds from now until `deadline`, rounded up: 0 once it passed.
    package static func milliseconds(until deadline: UInt64) -> Int32 {
        let now = now()
        return deadline <= now ? 0 : Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
    }
}

#if canImport(Glibc)
import Glibc
#endif
import CTicks

/// The clock of handlers' durations (`--metrics`): the CPU's time-stamp
/// counter, read in one instruction, where the kernel keeps its own time
/// with it (its clocksource is `tsc`, so the counter is steady and the same
/// on every CPU); `CLOCK_MONOTONIC` elsewhere, at about 20 ns a read, which
/// four reads a message would make a fifth of a message's time.
package enum TickClock {
    /// Ticks per nanosecond of the clock chosen.
    package struct Rate {
        package let perNanosecond: Double
    }

    /// Chooses the clock, once, on the dispatch thread before any handler
    /// is timed; with the time-stamp counter, measures its rate against
    /// `CLOCK_MONOTONIC` over 2 ms.
    package static func start() -> Rate {
        guard pushhost_ticks_have_tsc() != 0, kernelKeepsTimeWithTSC() else {
            pushhost_ticks_choose(0)
            return Rate(perNanosecond: 1)
        }
        pushhost_ticks_choose(1)
        let ticks = pushhost_ticks(), nanoseconds = MonotonicClock.now()
        var elapsed: UInt64 = 0
        while elapsed < 2_000_000 { elapsed = MonotonicClock.now() &- nanoseconds }
        return Rate(perNanosecond: Double(pushhost_ticks() &- ticks) / Double(elapsed))
    }

    /// Whether the kernel's clocksource is the time-stamp counter.
    private static func kernelKeepsTimeWithTSC() -> Bool {
        let path = "/sys/devices/system/clocksource/clocksource0/current_clocksource"
        guard let bytes = try? RegularFile.read(path, links: .follow) else { return false }
        return bytes.prefix(3) == [UInt8(ascii: "t"), UInt8(ascii: "s"), UInt8(ascii: "c")] && (bytes.count == 3 || bytes[3] == UInt8(ascii: "\n"))
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// The wall-clock time now, in milliseconds since the Unix epoch.
package func wallClockMilliseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec / 1_000_000)
}

/// The wall-clock time `milliseconds` (since the Unix epoch; now unless
/// given), in UTC with milliseconds, as RFC 3339 writes it:
/// `2026-11-22T19:40:03.127Z`.
package func wallClockText(_ milliseconds: Int64 = wallClockMilliseconds()) -> String {
    var parts = tm()
    var seconds = time_t(milliseconds.quotientAndRemainder(dividingBy: 1000).quotient - (milliseconds % 1000 < 0 ? 1 : 0))
    let millisecond = Int32(milliseconds - Int64(seconds) * 1000)
    gmtime_r(&seconds, &parts)
    func digits(_ value: Int32, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return digits(parts.tm_year + 1900, 4) + "-" + digits(parts.tm_mon + 1, 2) + "-" + digits(parts.tm_mday, 2)
        + "T" + digits(parts.tm_hour, 2) + ":" + digits(parts.tm_min, 2) + ":" + digits(parts.tm_sec, 2)
        + "." + digits(millisecond, 3) + "Z"
}

#if canImport(Glibc)
import Glibc
#endif

/// The wall-clock time now, in UTC with milliseconds, as RFC 3339 writes
/// it: `2026-11-22T19:40:03.127Z`.
func wallClockText() -> String {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    var parts = tm()
    var seconds = now.tv_sec
    gmtime_r(&seconds, &parts)
    func digits(_ value: Int32, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return digits(parts.tm_year + 1900, 4) + "-" + digits(parts.tm_mon + 1, 2) + "-" + digits(parts.tm_mday, 2)
        + "T" + digits(parts.tm_hour, 2) + ":" + digits(parts.tm_min, 2) + ":" + digits(parts.tm_sec, 2)
        + "." + digits(Int32(now.tv_nsec / 1_000_000), 3) + "Z"
}

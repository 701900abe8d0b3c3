/// A length of time as the command line writes it: `24h`, `90s`, `0.5s`.
package func durationText(_ seconds: Double) -> String {
    if seconds > 0 && seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600))h" }
    return seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s"
}

import ArgumentParser
import PushHostCore
import PushHostSystem

/// A length of time on the command line: `90s`, `30m`, `24h`, `7d`, or
/// plain seconds (`45`, `0.5`).
struct Duration: ExpressibleByArgument {
    let seconds: Double

    init(seconds: Double) {
        self.seconds = seconds
    }

    init?(argument: String) {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var number = Substring(argument)
        var unit = 1.0
        if let last = argument.last, let scale = units[last] {
            number = number.dropLast()
            unit = scale
        }
        guard let value = Double(number), value >= 0, value.isFinite else { return nil }
        seconds = value * unit
    }

    var defaultValueDescription: String { durationText(seconds) }
}

/// The host's log as the tests read it: each text line without the
/// timestamp it starts with (`2026-11-22T19:40:03.127Z `), so a test can
/// compare what a line says. `LogFormatTests` checks the timestamps themselves.
enum LogText {
    static func withoutTimestamps(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in isTimestamped(line) ? String(line.dropFirst(stampLength + 1)) : String(line) }
            .joined(separator: "\n")
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`: 24 characters.
    static let stampLength = 24

    static func isTimestamped(_ line: Substring) -> Bool {
        let bytes = Array(line.utf8.prefix(stampLength + 1))
        guard bytes.count == stampLength + 1 else { return false }
        let shape = Array("dddd-dd-ddTdd:dd:dd.dddZ ".utf8)
        return zip(bytes, shape).allSatisfy { byte, expected in
            expected == UInt8(ascii: "d") ? (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) : byte == expected
        }
    }
}

extension Command {
    /// The lines of standard error but the warning that no plugin is loaded,
    /// for a test that runs the host without plugins on purpose.
    var linesBesideNoPluginWarning: [String] {
        stderr.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("warning pushhost: no plugin loaded") }
    }
}

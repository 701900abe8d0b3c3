import CPushHost
import PushHostJSON

/// What a process plugin's program writes on its standard output, read as
/// hostile: each line one answer, `{"id":N}`, `{"id":N,"verdict":"continue"|"suppress"}`
/// or `{"id":N,"error":"why"}` (docs/process-plugins.md). Anything else is
/// malformed, and ends the program.
enum ProgramAnswers {
    /// One answer.
    struct Answer: Equatable {
        let id: UInt64
        /// `PH_CONTINUE`, `PH_SUPPRESS`, or `PH_FAILED` with `error`.
        let verdict: ph_verdict
        /// Whether it named a verdict (only a data call's answer may).
        let namedVerdict: Bool
        let error: String?
    }

    /// The longest line a program may write.
    static let lineLimit = 1 << 16
    /// The most bytes of an error the report keeps.
    static let errorLimit = 2048

    /// Why `line`, a program's first, is not `{"pushhost":1}` (other
    /// members left for later versions), or nil when it is.
    static func readyProblem(_ line: [UInt8]) -> String? {
        line.withUnsafeBytes { bytes in
            var reader = JSONReader(maxDepth: 2)
            guard let document = try? reader.parse(bytes), document.root.kind == .object,
                  let version = document.root.member(named: "pushhost"), version.kind == .number
            else { return "wrote a first line that is not {\"pushhost\":\(ProgramStart.protocolVersion)}: \(quoted(line))" }
            guard version.text == "\(ProgramStart.protocolVersion)" else {
                return "speaks protocol \(version.text), where this host speaks \(ProgramStart.protocolVersion)"
            }
            return nil
        }
    }

    /// The answer `line` holds, or why it holds none.
    static func read(_ line: UnsafeRawBufferPointer) -> Result<Answer, MalformedAnswer> {
        if let answer = plain(line) { return .success(answer) }
        var reader = JSONReader(maxDepth: 2)
        guard let document = try? reader.parse(line), document.root.kind == .object else {
            return .failure(MalformedAnswer("a line that is no JSON object: \(quoted(Array(line)))"))
        }
        var id: UInt64?
        var verdict = PH_CONTINUE
        var namedVerdict = false
        var error: String?
        for (key, value) in document.root.members {
            switch key.text {
            case "id":
                guard value.kind == .number, let number = UInt64(value.text), number > 0 else {
                    return .failure(MalformedAnswer("an id that is no positive integer: \(quoted(Array(line)))"))
                }
                id = number
            case "verdict":
                switch (value.kind, value.text) {
                case (.string, "continue"): verdict = PH_CONTINUE
                case (.string, "suppress"): verdict = PH_SUPPRESS
                default: return .failure(MalformedAnswer("a verdict that is neither \"continue\" nor \"suppress\": \(quoted(Array(line)))"))
                }
                namedVerdict = true
            case "error":
                guard value.kind == .string else { return .failure(MalformedAnswer("an error that is no string: \(quoted(Array(line)))")) }
                error = String(decoding: Array(value.text.utf8.prefix(errorLimit)), as: UTF8.self)
            default:
                return .failure(MalformedAnswer("an answer with the unknown member \(quoted(Array(key.text.utf8))) (members: id, verdict, error)"))
            }
        }
        guard let id else { return .failure(MalformedAnswer("an answer without an id: \(quoted(Array(line)))")) }
        if error != nil && namedVerdict { return .failure(MalformedAnswer("an answer with both a verdict and an error: \(quoted(Array(line)))")) }
        return .success(Answer(id: id, verdict: error != nil ? PH_FAILED : verdict, namedVerdict: namedVerdict, error: error))
    }

    /// The answer of a line written exactly as most are, `{"id":N}`,
    /// `{"id":N,"verdict":"continue"}` or `{"id":N,"verdict":"suppress"}`, or nil.
    private static func plain(_ line: UnsafeRawBufferPointer) -> Answer? {
        let head = 6
        guard line.count > head + 1, UnsafeRawBufferPointer(rebasing: line[..<head]).equals(#"{"id":"#) else { return nil }
        var id: UInt64 = 0
        var at = head
        while at < line.count, line[at] >= UInt8(ascii: "0") && line[at] <= UInt8(ascii: "9") {
            let (times, overflow) = id.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(line[at] - UInt8(ascii: "0")))
            guard !overflow && !carry, at - head < 20 else { return nil }
            id = sum
            at += 1
        }
        guard id > 0, line[head] != UInt8(ascii: "0") else { return nil }
        let rest = UnsafeRawBufferPointer(rebasing: line[at...])
        if rest.count == 1 && rest[0] == UInt8(ascii: "}") { return Answer(id: id, verdict: PH_CONTINUE, namedVerdict: false, error: nil) }
        if rest.equals(#","verdict":"continue"}"#) { return Answer(id: id, verdict: PH_CONTINUE, namedVerdict: true, error: nil) }
        if rest.equals(#","verdict":"suppress"}"#) { return Answer(id: id, verdict: PH_SUPPRESS, namedVerdict: true, error: nil) }
        return nil
    }

    /// `bytes` as a log shows them: at most 200, as JSON text.
    static func quoted(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        bytes.prefix(200).withUnsafeBytes { JSONWriter.appendString($0, to: &text) }
        return String(decoding: text, as: UTF8.self) + (bytes.count > 200 ? " (\(bytes.count) bytes)" : "")
    }
}

/// Where a record came from: a line of standard input, or a spool file.
package enum MessageSource: Equatable, Sendable {
    case stdin(line: Int)
    /// `record` is the 1-based index within a file of several records, nil for a single one.
    case spool(file: String, record: Int?)

    /// The id the host gives a message that has none of its own: unique in the run.
    var defaultID: String {
        switch self {
        case .stdin(let line): "stdin-\(line)"
        case .spool(let file, nil): file
        case .spool(let file, let record?): "\(file)#\(record)"
        }
    }

    /// Where, in words: `line 7`, `file x.json`, `file x.json, record 2`.
    var place: String {
        switch self {
        case .stdin(let line): "line \(line)"
        case .spool(let file, nil): "file \(file)"
        case .spool(let file, let record?): "file \(file), record \(record)"
        }
    }

    /// `{"kind":"stdin","line":7}` or `{"kind":"spool","file":"x.json"}`.
    func appendJSON(to bytes: inout [UInt8]) {
        var line = JSONLine(appendingTo: &bytes)
        switch self {
        case .stdin(let number):
            line.string("kind", "stdin")
            line.number("line", number)
        case .spool(let file, let record):
            line.string("kind", "spool")
            line.string("file", file)
            if let record { line.number("record", record) }
        }
        bytes = line.closed()
    }
}

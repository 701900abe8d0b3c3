import PushHostSystem
import PushHostJSON

/// Where a record came from: a line of standard input, a spool file, or a
/// plugin that submitted it through `ph.intake/1`.
@usableFromInline package enum RecordSource: Equatable, Sendable {
    case stdin(line: Int)
    /// `file` is the name as `SpoolName` prints it; `line` is the line the
    /// record starts on in a file of several records (or, in a document
    /// that is not valid JSON, the line of its mistake), nil for a file's
    /// only record or for the file itself.
    case spool(file: String, line: Int?)
    /// `record` counts the plugin's submitted records from 1.
    case plugin(name: String, record: Int)

    /// Where it came from, as a number: 0 standard input, 1 the spool, 2 a plugin.
    @usableFromInline package var kindNumber: Int {
        switch self {
        case .stdin: 0
        case .spool: 1
        case .plugin: 2
        }
    }

    /// The id the host gives a message that has none of its own, unique in
    /// the run: `stdin-7`, `x.json`, `x.json#3`, `fifo-source-2`.
    @usableFromInline package var defaultID: String {
        var bytes: [UInt8] = []
        appendDefaultID(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `defaultID`'s bytes.
    @inlinable package func appendDefaultID<Sink: ByteSink & ~Copyable>(to bytes: inout Sink) {
        switch self {
        case .stdin(let line):
            bytes.append(ascii: "stdin-")
            bytes.appendDecimal(line)
        case .spool(let file, let line):
            bytes.append(utf8: file)
            if let line {
                bytes.append(UInt8(ascii: "#"))
                bytes.appendDecimal(line)
            }
        case .plugin(let name, let record):
            bytes.append(utf8: name)
            bytes.append(UInt8(ascii: "-"))
            bytes.appendDecimal(record)
        }
    }

    /// Appends `defaultID` as a JSON string.
    @inlinable package func appendDefaultIDJSON<Sink: ByteSink & ~Copyable>(to bytes: inout Sink) {
        guard case .spool = self else {
            // "stdin-7", "fifo-source-2": plugin names are [a-z0-9_-], nothing to escape.
            bytes.append(UInt8(ascii: "\""))
            appendDefaultID(to: &bytes)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        JSONWriter.appendString(defaultID, to: &bytes)
    }

    /// Appends the text of the field `key` of `source` (`kind`, `line`,
    /// `file`, `plugin`, `record`); false when this source has no such field.
    package func append(_ key: UnsafeRawBufferPointer, to bytes: inout [UInt8]) -> Bool {
        if key.equals("kind") {
            bytes.append(contentsOf: kind.utf8)
            return true
        }
        switch self {
        case .stdin(let line) where key.equals("line"), .spool(_, let line?) where key.equals("line"):
            bytes.append(contentsOf: String(line).utf8)
        case .spool(let file, _) where key.equals("file"):
            bytes.append(contentsOf: file.utf8)
        case .plugin(let name, _) where key.equals("plugin"):
            bytes.append(contentsOf: name.utf8)
        case .plugin(_, let record) where key.equals("record"):
            bytes.append(contentsOf: String(record).utf8)
        default:
            return false
        }
        return true
    }

    /// Where, in words: `line 7`, `spool file x.json`, `spool file x.json, line 4`, `plugin fifo-source, record 3`.
    package var place: String {
        switch self {
        case .stdin(let line): "line \(line)"
        case .spool(let file, nil): "spool file \(file)"
        case .spool(let file, let line?): "spool file \(file), line \(line)"
        case .plugin(let name, let record): "plugin \(name), record \(record)"
        }
    }

    /// The word `source.kind` has.
    @usableFromInline var kind: String {
        switch self {
        case .stdin: "stdin"
        case .spool: "spool"
        case .plugin: "plugin"
        }
    }

    /// `{"kind":"stdin","line":7}`, `{"kind":"spool","file":"x.json","line":4}` or
    /// `{"kind":"plugin","plugin":"fifo-source","record":3}`.
    @inlinable package func appendJSON<Sink: ByteSink & ~Copyable>(to bytes: inout Sink) {
        if case .stdin(let number) = self {
            bytes.append(ascii: "{\"kind\":\"stdin\",\"line\":")
            bytes.appendDecimal(number)
            bytes.append(UInt8(ascii: "}"))
            return
        }
        var line = JSONLine(appendingTo: &bytes)
        line.string("kind", kind)
        switch self {
        case .stdin:
            break
        case .spool(let file, let number):
            line.string("file", file)
            if let number { line.number("line", number) }
        case .plugin(let name, let record):
            line.string("plugin", name)
            line.number("record", record)
        }
        bytes = line.closed()
    }
}

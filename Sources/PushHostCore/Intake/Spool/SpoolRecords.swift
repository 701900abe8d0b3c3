/// How a spool file splits into records: the whole file when it is one JSON
/// value (on one line or over several), else each non-blank line (NDJSON).
enum SpoolRecords {
    /// The records of `bytes`, as views into them.
    static func split(_ bytes: UnsafeRawBufferPointer, maxBytes: Int, reader: inout JSONReader) -> [LineReader.Line] {
        var lines = LineReader(contents: bytes, maxBytes: maxBytes)
        var records: [LineReader.Line] = []
        while let line = lines.next() { records.append(line) }
        if records.count > 1, bytes.count <= maxBytes, (try? reader.parse(bytes)) != nil {
            return [.record(bytes, line: 1)]
        }
        return records
    }
}

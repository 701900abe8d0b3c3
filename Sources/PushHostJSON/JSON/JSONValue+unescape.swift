/// On-demand decoding of string values.
extension JSONValue {
    /// Appends the UTF-8 of this string with its escapes resolved (`\uXXXX`, surrogate
    /// pairs and `\u0000` included) to `out`. For any other kind, appends ``rawBytes``.
    ///
    /// Cannot fail: the parse already validated every escape and byte.
    package func appendUnescaped(to out: inout [UInt8]) {
        let raw = rawBytes
        guard isEscaped, let start = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            out.append(contentsOf: raw)
            return
        }
        let stop = start + raw.count
        var run = start
        var p = start
        while p < stop {
            guard p.pointee == UInt8(ascii: "\\") else {
                p += 1
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(start: run, count: p - run))
            let (scalar, consumed) = JSONEscape.decode(at: p)
            var (bytes, count) = JSONEscape.utf8(scalar)
            while count > 0 {
                out.append(UInt8(truncatingIfNeeded: bytes))
                bytes &>>= 8
                count -= 1
            }
            p += consumed
            run = p
        }
        out.append(contentsOf: UnsafeBufferPointer(start: run, count: p - run))
    }
}

/// A JSON object being written, one member at a time.
///
/// It writes into an array it holds alone, so that appending never copies
/// what is there already: `init(appendingTo:)` takes the caller's bytes
/// over, and `finished()` or `closed()` hands them back.
struct JSONLine {
    var bytes: [UInt8]
    private var first = true

    /// A new object in a new array.
    init() {
        bytes = [UInt8(ascii: "{")]
    }

    /// An object after the bytes of `bytes`, which it takes over, leaving
    /// them empty until the caller takes them back.
    init(appendingTo bytes: inout [UInt8]) {
        self.bytes = []
        swap(&self.bytes, &bytes)
        self.bytes.append(UInt8(ascii: "{"))
    }

    /// Appends, as a value, the object that `build` writes.
    mutating func object(_ build: (inout JSONLine) -> Void) {
        var item = JSONLine(appendingTo: &bytes)
        build(&item)
        bytes = item.closed()
    }

    /// Starts the member `key`; the caller appends its value to `bytes`.
    mutating func key(_ key: StaticString) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(contentsOf: "\":".utf8)
    }

    /// The object's bytes, closed and ended with a newline, handed back.
    mutating func finished() -> [UInt8] {
        bytes.append(contentsOf: "}\n".utf8)
        return handBack()
    }

    /// The object's bytes, closed, to nest inside another value, handed back.
    mutating func closed() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return handBack()
    }

    /// The bytes, moved out: the caller holds them alone, so its next append copies nothing.
    private mutating func handBack() -> [UInt8] {
        var out: [UInt8] = []
        swap(&out, &bytes)
        return out
    }

    mutating func string(_ key: StaticString, _ value: String?) {
        self.key(key)
        if let value { JSONWriter.appendString(value, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
    }

    mutating func number(_ key: StaticString, _ value: Int) {
        self.key(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func strings(_ key: StaticString, _ values: [String]) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// An array of objects, one per value, each written by `build`.
    mutating func objects<Value>(_ key: StaticString, _ values: [Value], _ build: (inout JSONLine, Value) -> Void) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            object { build(&$0, value) }
        }
        bytes.append(UInt8(ascii: "]"))
    }
}

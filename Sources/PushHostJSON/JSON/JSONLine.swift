import PushHostSystem

/// A JSON object being written, one member at a time, into a sink it holds
/// alone (an array, or the report's ``ByteBuffer``), so that appending never
/// copies what is there already: `init(appendingTo:)` takes the caller's
/// bytes over, and `finished()` or `closed()` hands them back.
@usableFromInline package struct JSONLine<Sink: ByteSink & ~Copyable>: ~Copyable {
    @usableFromInline package var bytes: Sink
    @usableFromInline var first = true

    /// An object after the bytes of `bytes`, which it takes over, leaving
    /// them empty until the caller takes them back.
    @inlinable package init(appendingTo bytes: inout Sink) {
        self.bytes = Sink()
        swap(&self.bytes, &bytes)
        self.bytes.append(UInt8(ascii: "{"))
    }

    /// Appends, as a value, the object that `build` writes.
    package mutating func object(_ build: (inout JSONLine) -> Void) {
        var item = JSONLine(appendingTo: &bytes)
        build(&item)
        bytes = item.closed()
    }

    /// Starts the member `key`; the caller appends its value to `bytes`.
    @inline(__always)
    @inlinable package mutating func key(_ key: StaticString) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        bytes.append(UInt8(ascii: "\""))
        bytes.append(ascii: key)
        bytes.append(ascii: "\":")
    }

    /// The object's bytes, closed and ended with a newline, handed back.
    @inlinable package consuming func finished() -> Sink {
        bytes.append(ascii: "}\n")
        return bytes
    }

    /// The object's bytes, closed, to nest inside another value, handed back.
    @inlinable package consuming func closed() -> Sink {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    @inlinable package mutating func string(_ key: StaticString, _ value: String?) {
        self.key(key)
        if let value { JSONWriter.appendString(value, to: &bytes) } else { bytes.append(ascii: "null") }
    }

    @inlinable package mutating func number(_ key: StaticString, _ value: Int) {
        self.key(key)
        bytes.appendDecimal(value)
    }

    package mutating func strings(_ key: StaticString, _ values: [String]) {
        self.key(key)
        JSONWriter.appendStrings(values, to: &bytes)
    }

    /// An array of objects, one per value, each written by `build`.
    package mutating func objects<Value>(_ key: StaticString, _ values: [Value], _ build: (inout JSONLine, Value) -> Void) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            object { build(&$0, value) }
        }
        bytes.append(UInt8(ascii: "]"))
    }
}

extension JSONLine where Sink == [UInt8] {
    /// A new object in a new array.
    package init() {
        var bytes: [UInt8] = []
        self.init(appendingTo: &bytes)
    }
}

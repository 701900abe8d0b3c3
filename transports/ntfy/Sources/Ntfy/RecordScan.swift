/// What the plugin itself reads of a line: the top-level `id`, `event` and
/// `time` of a line that is one well-formed JSON object. The line is handed
/// to the host unchanged either way; this only decides what may become the
/// point to resume from.
struct RecordFields: Equatable {
    /// The raw text between the quotes of a string `id` (escapes left as
    /// they are), or nil when there is none, or more than one.
    var id: [UInt8]?
    /// The same for `event`.
    var event: [UInt8]?
    /// `time` when it is a whole number of seconds.
    var time: Int64?

    var isMessage: Bool { event == Array("message".utf8) }
    var isOpen: Bool { event == Array("open".utf8) }

    /// The fields of `line`, or nil when it is not one JSON object, or
    /// nests deeper than 64 levels (which the host rejects too).
    static func scan(_ line: [UInt8]) -> RecordFields? {
        var scanner = JSONScanner(bytes: line)
        return scanner.record()
    }
}

/// A small JSON reader that checks a whole line and keeps three members of
/// the top-level object. Its recursion is bounded by the nesting limit.
private struct JSONScanner {
    let bytes: [UInt8]
    var index = 0
    static let maxDepth = 64

    init(bytes: [UInt8]) { self.bytes = bytes }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func record() -> RecordFields? {
        skipSpace()
        guard current == UInt8(ascii: "{") else { return nil }
        var fields = RecordFields()
        var seenID = 0, seenEvent = 0, seenTime = 0
        let members = object(depth: 1) { scanner, key in
            switch key {
            case "id":
                seenID += 1
                guard scanner.current == UInt8(ascii: "\"") else { return scanner.value(depth: 1) }
                guard let text = scanner.string() else { return false }
                fields.id = Array(scanner.bytes[text])
                return true
            case "event":
                seenEvent += 1
                guard scanner.current == UInt8(ascii: "\"") else { return scanner.value(depth: 1) }
                guard let text = scanner.string() else { return false }
                fields.event = Array(scanner.bytes[text])
                return true
            case "time":
                seenTime += 1
                let start = scanner.index
                guard scanner.value(depth: 1) else { return false }
                fields.time = Int64(String(decoding: scanner.bytes[start..<scanner.index], as: UTF8.self))
                return true
            default:
                return scanner.value(depth: 1)
            }
        }
        guard members else { return nil }
        skipSpace()
        guard index == bytes.count else { return nil }
        if seenID != 1 { fields.id = nil }
        if seenEvent != 1 { fields.event = nil }
        if seenTime != 1 { fields.time = nil }
        return fields
    }

    mutating func skipSpace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    mutating func value(depth: Int) -> Bool {
        skipSpace()
        switch current {
        case UInt8(ascii: "{"): return object(depth: depth + 1) { scanner, _ in scanner.value(depth: depth + 1) }
        case UInt8(ascii: "["): return array(depth: depth + 1)
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    /// An object at `current`; `member` reads each value, given its key
    /// (only keys of plain letters are told apart; others are "").
    mutating func object(depth: Int, member: (inout JSONScanner, String) -> Bool) -> Bool {
        guard depth <= Self.maxDepth, current == UInt8(ascii: "{") else { return false }
        index += 1
        skipSpace()
        if current == UInt8(ascii: "}") {
            index += 1
            return true
        }
        while true {
            skipSpace()
            guard let key = string() else { return false }
            skipSpace()
            guard current == UInt8(ascii: ":") else { return false }
            index += 1
            skipSpace()
            let name = key.count <= 8 ? String(decoding: bytes[key], as: UTF8.self) : ""
            guard member(&self, name) else { return false }
            skipSpace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return true
            default: return false
            }
        }
    }

    mutating func array(depth: Int) -> Bool {
        guard depth <= Self.maxDepth else { return false }
        index += 1
        skipSpace()
        if current == UInt8(ascii: "]") {
            index += 1
            return true
        }
        while true {
            guard value(depth: depth) else { return false }
            skipSpace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return true
            default: return false
            }
        }
    }

    /// A string at `current`: the range of its raw content, or nil when it is malformed.
    mutating func string() -> Range<Int>? {
        guard current == UInt8(ascii: "\"") else { return nil }
        index += 1
        let start = index
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return start..<(index - 1)
            case UInt8(ascii: "\\"):
                index += 1
                guard let escaped = current else { return nil }
                if escaped == UInt8(ascii: "u") {
                    guard index + 4 < bytes.count, bytes[(index + 1)...(index + 4)].allSatisfy(Self.isHex) else { return nil }
                    index += 5
                } else {
                    guard Array("\"\\/bfnrt".utf8).contains(escaped) else { return nil }
                    index += 1
                }
            case 0..<0x20:
                return nil
            default:
                index += 1
            }
        }
        return nil
    }

    mutating func number() -> Bool {
        if current == UInt8(ascii: "-") { index += 1 }
        let integer = index
        let count = digits()
        guard count > 0, count == 1 || bytes[integer] != UInt8(ascii: "0") else { return false }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return false }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return false }
        }
        return true
    }

    mutating func digits() -> Int {
        let start = index
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        return index - start
    }

    mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let matches = word.withUTF8Buffer { Array($0) == Array(bytes[index..<(index + count)]) }
        if matches { index += count }
        return matches
    }

    static func isHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}

/// The name of an entry in a spool folder: the bytes the file system holds,
/// which need not be UTF-8, and a printable form for logs, the report and
/// `NAME.error.json`.
///
/// The printable form can be turned back into the bytes: valid UTF-8 stays
/// as it is, a backslash is doubled, and every other byte (invalid UTF-8, a
/// control character) is written `\xNN` in lower case hex.
///
/// ```
/// SpoolName([0x63, 0x61, 0x66, 0xE9]).printed  // caf\xe9
/// SpoolName(Array(#"a\b"#.utf8)).printed      // a\\b
/// ```
struct SpoolName: Hashable, Sendable {
    let bytes: [UInt8]
    let printed: String

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        printed = Self.print(bytes)
    }

    static func == (lhs: SpoolName, rhs: SpoolName) -> Bool { lhs.bytes == rhs.bytes }

    func hash(into hasher: inout Hasher) { hasher.combine(bytes) }

    /// Whether the host takes an entry of this name: not hidden (producers'
    /// temporary names start with a dot).
    var isTaken: Bool { bytes.first.map { $0 != UInt8(ascii: ".") } ?? false }

    /// `NAME.N`: the name an entry takes in `cur/` or `failed/` when `NAME`
    /// is there already.
    func numbered(_ number: Int) -> SpoolName {
        SpoolName(bytes + Array(".\(number)".utf8))
    }

    /// `NAME` followed by `suffix` (such as `.error.json`).
    func adding(_ suffix: String) -> SpoolName {
        SpoolName(bytes + Array(suffix.utf8))
    }

    /// The printable form of `bytes`.
    private static func print(_ bytes: [UInt8]) -> String {
        var text = ""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var position = 0
        func escape(_ byte: UInt8) {
            let hex = String(byte, radix: 16)
            text += "\\x" + (hex.count == 1 ? "0" + hex : hex)
        }
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    escape(UInt8(scalar.value))
                } else if scalar == "\\" {
                    text += "\\\\"
                } else {
                    text.unicodeScalars.append(scalar)
                }
                position += encoded.count
            case .error(let length):
                for byte in bytes[position..<position + length] { escape(byte) }
                position += length
            case .emptyInput:
                return text
            }
        }
    }
}

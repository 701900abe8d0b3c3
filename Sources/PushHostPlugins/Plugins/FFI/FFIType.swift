import CFFI

/// A word of the ffi manifest's closed vocabulary of types (docs/plugins.md),
/// and what it is in C and to libffi.
enum FFIType: String, CaseIterable {
    case int8, int16, int32, int64
    case uint8, uint16, uint32, uint64
    case float, double, bool
    /// `const char *`: a value's text, NUL-ended.
    case string
    /// `const void *, size_t`: a value's text and its length (two C parameters).
    case bytes
    /// `const char *`: the whole normalized message as compact JSON.
    case json
    /// `void (*)(const char *text)`: a callback into pushhost's log.
    case log

    /// The words, for a refusal that lists them.
    static let vocabulary = allCases.map(\.rawValue).joined(separator: ", ")

    /// `an int32`, `a uint8`, `a double`: the word with its article, for refusals.
    var withArticle: String { (isSignedInteger ? "an " : "a ") + rawValue }

    var isSignedInteger: Bool {
        switch self {
        case .int8, .int16, .int32, .int64: true
        default: false
        }
    }

    var isUnsignedInteger: Bool {
        switch self {
        case .uint8, .uint16, .uint32, .uint64: true
        default: false
        }
    }

    var isInteger: Bool { isSignedInteger || isUnsignedInteger }
    var isFloatingPoint: Bool { self == .float || self == .double }
    /// Whether its value is made from a value's text by conversion.
    var isScalar: Bool { isInteger || isFloatingPoint || self == .bool }
    /// Whether it is a pointer to text (NULL allowed).
    var isText: Bool { self == .string || self == .bytes || self == .json }

    /// The smallest and largest integer the type holds, as 64-bit patterns
    /// compared by sign (`isSignedInteger`).
    var integerRange: (min: Int64, max: UInt64) {
        switch self {
        case .int8: (Int64(Int8.min), UInt64(Int8.max))
        case .int16: (Int64(Int16.min), UInt64(Int16.max))
        case .int32: (Int64(Int32.min), UInt64(Int32.max))
        case .int64: (Int64.min, UInt64(Int64.max))
        case .uint8: (0, UInt64(UInt8.max))
        case .uint16: (0, UInt64(UInt16.max))
        case .uint32: (0, UInt64(UInt32.max))
        case .bool: (0, 1)
        default: (0, UInt64.max)
        }
    }

    /// Its C type, as a return type or before a parameter's name.
    var cType: String {
        switch self {
        case .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint64: rawValue + "_t"
        case .float, .double, .bool: rawValue
        case .string, .json: "const char *"
        case .bytes: "const void *"
        case .log: "void (*)(const char *)"
        }
    }

    /// Its C parameter(s) named by `name`: `int32_t data.priority`,
    /// `const void *data.blob, size_t`, `void (*log)(const char *)`.
    func cParameter(_ name: String) -> String {
        switch self {
        case .string, .json: "const char *" + name
        case .bytes: "const void *\(name), size_t"
        case .log: "void (*\(name))(const char *)"
        default: cType + " " + name
        }
    }

    /// The libffi types of its C parameter(s), in order.
    var ffiKinds: [ph_ffi_kind] {
        switch self {
        case .int8: [PH_FFI_SINT8]
        case .int16: [PH_FFI_SINT16]
        case .int32: [PH_FFI_SINT32]
        case .int64: [PH_FFI_SINT64]
        case .uint8, .bool: [PH_FFI_UINT8]
        case .uint16: [PH_FFI_UINT16]
        case .uint32: [PH_FFI_UINT32]
        case .uint64: [PH_FFI_UINT64]
        case .float: [PH_FFI_FLOAT]
        case .double: [PH_FFI_DOUBLE]
        case .string, .json, .log: [PH_FFI_POINTER]
        case .bytes: [PH_FFI_POINTER, PH_FFI_SIZE]
        }
    }
}

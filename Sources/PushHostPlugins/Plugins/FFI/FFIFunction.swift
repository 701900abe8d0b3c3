#if canImport(Glibc)
import Glibc
#endif
import CFFI
import PushHostJSON
import PushHostMessage

/// One C function of a manifest, ready to call through libffi: its call
/// interface prepared once (`ffi_prep_cif`), a slot of 8 bytes per C
/// parameter with the literals and the log callback written in once, and
/// the arguments to fill per call.
///
/// A call fills the slots of the bound arguments from the message's C
/// strings (``FFIConversion`` for scalars) and calls `ffi_call`: no Swift
/// `String` is made unless an argument does not fit, and then the function
/// is not called. Calls come from the dispatch thread only, one at a time.
final class FFIFunction {
    let spec: FFIFunctionSpec
    /// The plugin's name, for problems.
    private let plugin: String
    private let cif: UnsafeMutablePointer<ffi_cif>
    private let entry: @convention(c) () -> Void
    private let slots: UnsafeMutableRawPointer
    private let values: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let result: UnsafeMutableRawPointer
    /// The arguments filled per call, in order.
    private let perCall: UnsafeMutableBufferPointer<Argument>

    private struct Argument {
        let type: FFIType
        let binding: Binding
        /// Its first slot.
        let slot: Int
    }

    private enum Binding {
        case path(UnsafePointer<CChar>, fallback: FFILiteral?)
        case message
        case token
        case previous
    }

    /// Prepares `spec`'s call of `symbol`; `log` is the code address of the
    /// plugin's log callback.
    init(_ spec: FFIFunctionSpec, symbol: UnsafeMutableRawPointer, plugin: String, log: UnsafeMutableRawPointer) throws(PluginRefusal) {
        self.spec = spec
        self.plugin = plugin
        entry = unsafeBitCast(symbol, to: (@convention(c) () -> Void).self)
        let kinds = spec.params.flatMap(\.ffiKinds)
        let types = UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>.allocate(capacity: max(kinds.count, 1))
        for (position, kind) in kinds.enumerated() { types[position] = ph_ffi_type(kind) }
        cif = .allocate(capacity: 1)
        let returnKind = spec.returns?.ffiKinds[0] ?? PH_FFI_VOID
        let status = ffi_prep_cif(cif, FFI_DEFAULT_ABI, UInt32(kinds.count), ph_ffi_type(returnKind), types)
        guard status == FFI_OK else {
            throw .ffi("\(spec.label): libffi refused the signature of \(spec.symbol) (ffi_status \(status.rawValue))")
        }
        slots = .allocate(byteCount: 8 * max(kinds.count, 1), alignment: 8)
        slots.initializeMemory(as: UInt8.self, repeating: 0, count: 8 * max(kinds.count, 1))
        values = .allocate(capacity: max(kinds.count, 1))
        for position in 0..<kinds.count { values[position] = slots + 8 * position }
        result = .allocate(byteCount: 16, alignment: 16)
        var perCall: [Argument] = []
        var slot = 0
        for (type, binding) in zip(spec.params, spec.args) {
            switch binding {
            case .literal(let literal): Self.write(literal, type: type, to: slots + 8 * slot)
            case .log: (slots + 8 * slot).storeBytes(of: log, as: UnsafeMutableRawPointer.self)
            case .path(let path, let fallback): perCall.append(Argument(type: type, binding: .path(UnsafePointer(strdup(path)!), fallback: fallback), slot: slot))
            case .message: perCall.append(Argument(type: type, binding: .message, slot: slot))
            case .token: perCall.append(Argument(type: type, binding: .token, slot: slot))
            case .previous: perCall.append(Argument(type: type, binding: .previous, slot: slot))
            }
            slot += type.ffiKinds.count
        }
        // Exactly as many as there are: a buffer's count is its capacity, so
        // a spare element, never initialized, would be read as an argument.
        self.perCall = .allocate(capacity: perCall.count)
        _ = self.perCall.initialize(from: perCall)
    }

    // MARK: Calls

    /// Calls the function on a message, and returns its return value's bits;
    /// nil when an argument did not fit (the message then carries the
    /// problem, see `Message.noteProblem`) and the function was not called.
    @inline(__always)
    func call(_ message: OpaquePointer) -> UInt64? {
        for index in 0..<perCall.count {
            let argument = perCall[index]
            let slot = slots + 8 * argument.slot
            switch argument.binding {
            case .path(let path, let fallback):
                var count = 0
                var isString = false
                if let text = Message.value(message, atPath: path, count: &count, isString: &isString) {
                    if argument.type.isScalar {
                        switch FFIConversion.bits(text, count: count, as: argument.type) {
                        case .success(let bits): slot.storeBytes(of: bits, as: UInt64.self)
                        case .failure(let problem):
                            return refuse(message, path, text, count, isString, problem.reason(for: argument.type))
                        }
                    } else if argument.type == .string, strlen(text) != count {
                        return refuse(message, path, text, count, isString, "which holds a NUL byte, where a string would end")
                    } else {
                        Self.write(text: text, count: count, type: argument.type, to: slot)
                    }
                } else if let fallback {
                    Self.write(fallback, type: argument.type, to: slot)
                } else if argument.type.isScalar {
                    return refuse(message, "\(String(cString: path)) is missing and has no default")
                } else {
                    Self.write(text: nil, count: 0, type: argument.type, to: slot)
                }
            case .message:
                let json = Message.jsonText(message)
                Self.write(text: json.text, count: json.count, type: argument.type, to: slot)
            case .token, .previous:
                continue
            }
        }
        ffi_call(cif, entry, result, values)
        return returned()
    }

    /// Calls a token handler with the new token and the one before it.
    func call(token: UnsafePointer<CChar>, previous: UnsafePointer<CChar>?) {
        for argument in UnsafeBufferPointer(perCall) {
            let text: UnsafePointer<CChar>?
            switch argument.binding {
            case .token: text = token
            case .previous: text = previous
            case .path, .message: continue
            }
            Self.write(text: text, count: text.map { strlen($0) } ?? 0, type: argument.type, to: slots + 8 * argument.slot)
        }
        ffi_call(cif, entry, result, values)
    }

    /// Calls `init` or `fini`, whose arguments are all written in already.
    func call() -> UInt64 {
        ffi_call(cif, entry, result, values)
        return returned()
    }

    /// The bits of the return value: libffi widens an integer to 64 bits,
    /// by its sign; a float is in the low 4 bytes.
    @inline(__always)
    private func returned() -> UInt64 {
        guard let returns = spec.returns else { return 0 }
        switch returns {
        case .float: return UInt64(result.load(as: UInt32.self))
        case .bool: return result.load(as: UInt64.self) & 0xff == 0 ? 0 : 1
        default: return result.load(as: UInt64.self)
        }
    }

    /// Notes why the function was not called on `message`; returns nil.
    private func refuse(_ message: OpaquePointer, _ problem: String) -> UInt64? {
        Message.noteProblem(message, "\(plugin): \(problem) (\(spec.symbol) not called)")
        return nil
    }

    /// Notes that the value at `path` does not make its parameter, and
    /// why: `data.big is 2.5, which is not an integer`; returns nil.
    private func refuse(
        _ message: OpaquePointer, _ path: UnsafePointer<CChar>, _ text: UnsafePointer<CChar>, _ count: Int, _ isString: Bool, _ why: String
    ) -> UInt64? {
        refuse(message, "\(String(cString: path)) is \(Self.shown(text, count: count, isString: isString)), \(why)")
    }

    /// A value in a problem as JSON writes it: a string quoted (and
    /// escaped), a number, a boolean, an object or an array as it is.
    private static func shown(_ text: UnsafePointer<CChar>, count: Int, isString: Bool) -> String {
        let bytes = UnsafeRawBufferPointer(start: text, count: count)
        guard isString else { return String(decoding: bytes, as: UTF8.self) }
        var quoted: [UInt8] = []
        JSONWriter.appendString(bytes, to: &quoted)
        return String(decoding: quoted, as: UTF8.self)
    }

    // MARK: Slots

    private static func write(_ literal: FFILiteral, type: FFIType, to slot: UnsafeMutableRawPointer) {
        switch literal {
        case .scalar(let bits, _): slot.storeBytes(of: bits, as: UInt64.self)
        case .text(let text, let count): write(text: text, count: count, type: type, to: slot)
        case .null: write(text: nil, count: 0, type: type, to: slot)
        }
    }

    /// A text parameter: the pointer, and for bytes its length in the next slot.
    @inline(__always)
    private static func write(text: UnsafePointer<CChar>?, count: Int, type: FFIType, to slot: UnsafeMutableRawPointer) {
        slot.storeBytes(of: text, as: UnsafePointer<CChar>?.self)
        if type == .bytes { (slot + 8).storeBytes(of: count, as: Int.self) }
    }
}

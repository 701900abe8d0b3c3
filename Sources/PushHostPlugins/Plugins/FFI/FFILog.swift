#if canImport(Glibc)
import Glibc
#endif
import CFFI
import CPushHost

/// The log callback `void (*)(const char *text)` that a log parameter
/// passes: a libffi closure (`ffi_prep_closure_loc`) whose every call is one
/// line of pushhost's log, level info, under the plugin's name, from any
/// thread. Made at load, never freed, like the library it serves.
final class FFILog: @unchecked Sendable {
    /// The code address the C function calls.
    let code: UnsafeMutableRawPointer
    /// The plugin's host table, set once before `init` is called; until
    /// then a call logs nothing.
    var host: UnsafePointer<ph_host>?
    private let closure: UnsafeMutablePointer<ffi_closure>
    private let cif = UnsafeMutablePointer<ffi_cif>.allocate(capacity: 1)
    private let types = UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>.allocate(capacity: 1)

    init() throws(PluginRefusal) {
        var code: UnsafeMutableRawPointer?
        guard let memory = ffi_closure_alloc(ph_ffi_closure_size(), &code), let code else {
            throw .ffi("libffi could not allocate the log callback")
        }
        closure = memory.assumingMemoryBound(to: ffi_closure.self)
        self.code = code
        types[0] = ph_ffi_type(PH_FFI_POINTER)
        guard ffi_prep_cif(cif, FFI_DEFAULT_ABI, 1, ph_ffi_type(PH_FFI_VOID), types) == FFI_OK,
              ffi_prep_closure_loc(closure, cif, Self.entry, Unmanaged.passUnretained(self).toOpaque(), code) == FFI_OK
        else {
            throw .ffi("libffi could not prepare the log callback")
        }
    }

    /// What the closure runs: `arguments[0]` points at the `const char *`.
    private static let entry: @convention(c) (
        UnsafeMutablePointer<ffi_cif>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafeMutableRawPointer?
    ) -> Void = { _, _, arguments, log in
        guard let log, let host = Unmanaged<FFILog>.fromOpaque(log).takeUnretainedValue().host,
              let argument = arguments?[0] else { return }
        let text = argument.load(as: UnsafePointer<CChar>?.self)
        PluginContext.of(host).logger.info("\(text.map { String(cString: $0) } ?? "(null)")")
    }
}

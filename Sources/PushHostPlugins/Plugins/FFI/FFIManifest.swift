import CPushHost

/// An ffi manifest `NAME.ffi.json` as read and checked, before any library
/// is opened (docs/plugins.md, ffi handlers): the functions of plain C libraries bound to
/// the roles of one plugin named NAME.
package struct FFIManifest {
    let name: String
    let version: String
    let summary: String
    /// The library every function names unless it names its own, as written.
    package let library: String?
    package let initFunction: FFIFunctionSpec?
    package let finiFunction: FFIFunctionSpec?
    package let handlers: [FFIHandlerSpec]

    /// `legacy.ffi.json` -> `legacy`.
    package static let suffix = ".ffi.json"
}

/// One C function of a manifest: where it is, its signature in the
/// manifest's vocabulary, and what each argument is bound to.
package struct FFIFunctionSpec {
    /// `init`, `fini`, or the handler's role: how refusals and listings name it.
    let label: String
    let symbol: String
    package let library: String
    /// nil for void.
    let returns: FFIType?
    let params: [FFIType]
    let args: [FFIBinding]
}

/// A handler's role in a manifest: a plugin's role, or `mismatch`, the
/// function a screen calls as `on_mismatch` (on top, for a message aimed at
/// no visible screen).
enum FFIRole: String, CaseIterable {
    case data, background, screen, mismatch, token

    /// The words, for a refusal that lists them.
    static let vocabulary = allCases.map(\.rawValue).joined(separator: ", ")
}

/// One handler of a manifest: a function in a role.
package struct FFIHandlerSpec {
    let role: FFIRole
    package let function: FFIFunctionSpec
    /// A screen's targets.
    let targets: [String]
    /// A data handler's verdict per return value.
    let verdicts: FFIVerdicts
}

/// How a data handler's return value becomes a verdict.
struct FFIVerdicts {
    /// Return values (as ``FFIConversion`` bits) and their verdicts, in the manifest's order.
    let entries: [(bits: UInt64, verdict: ph_verdict)]
    let fallback: ph_verdict
    /// The return values as the manifest writes them, for listings.
    let words: [(value: String, verdict: String)]

    /// Without a map: 0 (or true) continues, anything else fails; a void
    /// function always continues.
    static func standard(for returns: FFIType?) -> FFIVerdicts {
        guard let returns else { return FFIVerdicts(entries: [], fallback: PH_CONTINUE, words: []) }
        let good: UInt64 = returns == .bool ? 1 : 0
        return FFIVerdicts(entries: [(good, PH_CONTINUE)], fallback: PH_FAILED, words: [(returns == .bool ? "true" : "0", "continue")])
    }

    func verdict(for bits: UInt64) -> ph_verdict {
        for entry in entries where entry.bits == bits { return entry.verdict }
        return fallback
    }

    /// `0 continue, 1 suppress, else failed`.
    var text: String {
        let fallbackWord = Self.words.first { $0.value == fallback }?.key ?? "failed"
        return (words.map { "\($0.value) \($0.verdict)" } + ["else \(fallbackWord)"]).joined(separator: ", ")
    }

    /// The verdict words of a manifest.
    static let words: [String: ph_verdict] = ["continue": PH_CONTINUE, "suppress": PH_SUPPRESS, "failed": PH_FAILED]
}

extension FFIPlugin {
    /// Each function as `pushhost plugins` shows it, in the order of a
    /// message's life: `init`, the handlers, `fini`.
    ///
    /// ```
    /// init: int32_t legacy_open("/var/lib/legacy", log)
    /// data: int32_t legacy_check(const char *id, int64_t data.count = 0) -> 0 continue, 1 suppress, else failed
    /// background: void legacy_alert(const char *notification.title, int32_t data.priority = 3)
    /// ```
    var signatures: [(role: String, signature: String)] {
        var lines: [(String, String)] = []
        if let initFunction { lines.append(("init", Self.signature(initFunction.spec))) }
        for (spec, function) in handlers {
            var line = Self.signature(function.spec)
            if spec.role == .data, function.spec.returns != nil { line += " -> " + spec.verdicts.text }
            lines.append((spec.role.rawValue, line))
        }
        if let finiFunction { lines.append(("fini", Self.signature(finiFunction.spec))) }
        return lines
    }

    /// `int32_t legacy_alert(const char *notification.title, int32_t 3, log)`:
    /// each parameter named by what it is bound to; a literal or the log
    /// callback by itself.
    static func signature(_ spec: FFIFunctionSpec) -> String {
        let parameters = zip(spec.params, spec.args).map { type, binding in
            switch binding {
            case .literal(let literal): literal.cText
            case .log: "log"
            default: type.cParameter(binding.cName)
            }
        }
        return "\(spec.returns?.cType ?? "void") \(spec.symbol)(\(parameters.isEmpty ? "void" : parameters.joined(separator: ", ")))"
    }
}

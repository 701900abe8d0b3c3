#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import PushHostJSON
import PushHostSystem

extension FFIManifest {
    /// Reads and checks the manifest at `path`; every problem refuses it
    /// with one line naming what is wrong and where.
    package static func read(_ path: String) throws(PluginRefusal) -> FFIManifest {
        let fileName = path.split(separator: "/").last.map(String.init) ?? path
        let name = String(fileName.dropLast(suffix.count))
        guard PluginDescriptor.isValidName(name) else { throw .badName(name) }
        return try ManifestJSON(refuse: PluginRefusal.ffi).read(path) { root throws(PluginRefusal) in
            try FFIManifestReader().manifest(root, name: name)
        }
    }
}

/// The checks of a manifest's JSON, key by key.
private struct FFIManifestReader {
    private let json = ManifestJSON(refuse: PluginRefusal.ffi)

    /// What an argument may be bound to.
    private enum Context {
        /// A data, background, screen or mismatch handler: message paths.
        case message
        /// A token handler: `token` and `previous`.
        case token
        /// `init` and `fini`: literals and the log only.
        case lifecycle
    }

    func manifest(_ root: JSONValue, name: String) throws(PluginRefusal) -> FFIManifest {
        // "sandbox" is the host's: the grants of the manifest's worker (SettingsFile.of(plugin:)).
        let keys = try json.members(root, of: "the manifest", allowed: ["library", "version", "description", "init", "fini", "handlers", "sandbox"])
        let library = try keys["library"].map { value throws(PluginRefusal) in try json.string(value, "library") }
        guard let list = keys["handlers"], list.kind == .array, list.count > 0 else {
            throw .ffi("the manifest needs \"handlers\", a non-empty array")
        }
        var handlers: [FFIHandlerSpec] = []
        var elements = list.elements
        while let element = elements.next() {
            let handler = try self.handler(element, library: library)
            if handlers.contains(where: { $0.role == handler.role }) {
                throw .ffi("two handlers have the role \(handler.role.rawValue) (one per role in a manifest)")
            }
            handlers.append(handler)
        }
        if handlers.contains(where: { $0.role == .mismatch }) && !handlers.contains(where: { $0.role == .screen }) {
            throw .ffi("handler mismatch: a mismatch handler needs a screen handler in the manifest, whose targets make the screen")
        }
        return FFIManifest(
            name: name,
            version: try keys["version"].map { value throws(PluginRefusal) in try json.string(value, "version") } ?? "",
            summary: try keys["description"].map { value throws(PluginRefusal) in try json.string(value, "description") } ?? "",
            library: library,
            initFunction: try keys["init"].map { value throws(PluginRefusal) in try function(value, label: "init", library: library, context: .lifecycle) },
            finiFunction: try keys["fini"].map { value throws(PluginRefusal) in try function(value, label: "fini", library: library, context: .lifecycle) },
            handlers: handlers)
    }

    // MARK: Handlers and functions

    private static let functionKeys = ["symbol", "library", "returns", "params", "args"]

    private func handler(_ value: JSONValue, library: String?) throws(PluginRefusal) -> FFIHandlerSpec {
        let keys = try json.members(value, of: "a handler", allowed: Self.functionKeys + ["role", "targets", "verdicts"])
        guard let roleValue = keys["role"] else { throw .ffi("a handler has no \"role\" (\(FFIRole.vocabulary))") }
        let roleWord = try json.string(roleValue, "role")
        guard let role = FFIRole(rawValue: roleWord) else {
            throw .ffi("unknown role \"\(roleWord)\" (roles: \(FFIRole.vocabulary))")
        }
        let label = "handler \(role.rawValue)"
        let function = try self.function(value, label: label, library: library, context: role == .token ? .token : .message)
        var targets: [String] = []
        if let list = keys["targets"] {
            guard role == .screen else { throw .ffi("\(label): \"targets\" are for a screen handler") }
            targets = try json.strings(list, "\(label): targets")
        }
        if role == .screen {
            guard !targets.isEmpty else { throw .ffi("\(label): a screen handler must list its \"targets\"") }
            guard !targets.contains("") else { throw .ffi("\(label): a target is empty") }
        }
        var verdicts = FFIVerdicts.standard(for: function.returns)
        if role == .data {
            if let returns = function.returns, !returns.isInteger && returns != .bool {
                throw .ffi("\(label): a data handler returns void, an integer or a bool, to map to verdicts, not \(returns.rawValue)")
            }
            if let map = keys["verdicts"] { verdicts = try self.verdicts(map, returns: function.returns, label: label) }
        } else if keys["verdicts"] != nil {
            throw .ffi("\(label): \"verdicts\" are for a data handler")
        }
        return FFIHandlerSpec(role: role, function: function, targets: targets, verdicts: verdicts)
    }

    private func function(_ value: JSONValue, label: String, library: String?, context: Context) throws(PluginRefusal) -> FFIFunctionSpec {
        let keys = try json.members(value, of: label, allowed: context == .lifecycle ? Self.functionKeys : Self.functionKeys + ["role", "targets", "verdicts"])
        guard let symbolValue = keys["symbol"] else { throw .ffi("\(label) has no \"symbol\"") }
        let symbol = try json.string(symbolValue, "\(label): symbol")
        guard let library = try keys["library"].map({ value throws(PluginRefusal) in try json.string(value, "\(label): library") }) ?? library else {
            throw .ffi("\(label) names no library, and the manifest has none")
        }
        let returns = try keys["returns"].map { value throws(PluginRefusal) in try returnType(value, label: label) } ?? nil
        let params = try keys["params"].map { value throws(PluginRefusal) in try json.strings(value, "\(label): params") } ?? []
        let types = try params.map { word throws(PluginRefusal) in
            guard let type = FFIType(rawValue: word) else {
                throw .ffi("\(label): unknown type \"\(word)\" (types: \(FFIType.vocabulary))")
            }
            return type
        }
        var args: [FFIBinding] = []
        if let list = keys["args"] {
            guard list.kind == .array else { throw .ffi("\(label): \"args\" must be an array") }
            guard list.count == types.count else {
                throw .ffi("\(label): \(symbol) has \(types.count) params but \(list.count) args")
            }
            var elements = list.elements
            for (position, type) in types.enumerated() {
                let place = "\(label), argument \(position + 1)"
                args.append(try binding(elements.next()!, type: type, context: context, label: place))
            }
        } else if !types.isEmpty {
            throw .ffi("\(label): \(symbol) has \(types.count) params but 0 args")
        }
        return FFIFunctionSpec(label: label, symbol: symbol, library: library, returns: returns, params: types, args: args)
    }

    private func returnType(_ value: JSONValue, label: String) throws(PluginRefusal) -> FFIType? {
        let word = try json.string(value, "\(label): returns")
        if word == "void" { return nil }
        guard let type = FFIType(rawValue: word), type.isScalar else {
            let returns = (["void"] + FFIType.allCases.filter(\.isScalar).map(\.rawValue)).joined(separator: ", ")
            throw .ffi("\(label): unknown return type \"\(word)\" (returns: \(returns))")
        }
        return type
    }

    private func verdicts(_ map: JSONValue, returns: FFIType?, label: String) throws(PluginRefusal) -> FFIVerdicts {
        guard let returns else { throw .ffi("\(label): a void function has no return value to map to verdicts") }
        guard map.kind == .object else { throw .ffi("\(label): \"verdicts\" must be an object") }
        var entries: [(bits: UInt64, verdict: ph_verdict)] = []
        var words: [(value: String, verdict: String)] = []
        var fallback = PH_FAILED
        var members = map.members
        while let (key, value) = members.next() {
            let word = value.kind == .string ? value.text : ""
            guard let verdict = FFIVerdicts.words[word] else {
                throw .ffi("\(label): verdicts: \"\(key.text)\" maps to \(value.kind == .string ? "\"\(word)\"" : value.kind.withArticle), not continue, suppress or failed")
            }
            if key.text == "default" {
                fallback = verdict
                continue
            }
            switch FFIConversion.bits(key.text, count: key.text.utf8.count, as: returns) {
            case .success(let bits):
                entries.append((bits, verdict))
                words.append((key.text, word))
            case .failure(let problem):
                throw .ffi("\(label): verdicts: the return value \"\(key.text)\", \(problem.reason(for: returns))")
            }
        }
        return FFIVerdicts(entries: entries, fallback: fallback, words: words)
    }

    // MARK: Arguments

    private func binding(_ value: JSONValue, type: FFIType, context: Context, label: String) throws(PluginRefusal) -> FFIBinding {
        switch value.kind {
        case .string:
            return try word(value.text, type: type, context: context, label: label)
        case .number, .true, .false, .null:
            return .literal(try literal(value, type: type, label: label))
        case .object:
            let keys = try json.members(value, of: label, allowed: ["value", "path", "default"])
            if let literalValue = keys["value"] {
                guard keys.count == 1 else { throw .ffi("\(label): a \"value\" stands alone (no \"path\" or \"default\")") }
                return .literal(try literal(literalValue, type: type, label: label))
            }
            guard let pathValue = keys["path"] else { throw .ffi("\(label): an object argument has \"value\", or \"path\" and maybe \"default\"") }
            let path = try json.string(pathValue, "\(label): path")
            let binding = try word(path, type: type, context: context, label: label)
            guard case .path(let path, nil) = binding else {
                guard keys["default"] == nil else { throw .ffi("\(label): only a message path takes a \"default\"") }
                return binding
            }
            return .path(path, default: try keys["default"].map { value throws(PluginRefusal) in try literal(value, type: type, label: label) })
        case .array:
            throw .ffi("\(label): an argument is a path, a literal, or an object with \"value\" or \"path\", not an array")
        }
    }

    /// A binding written as a string: a path, `message`, `log`, `token` or `previous`.
    private func word(_ word: String, type: FFIType, context: Context, label: String) throws(PluginRefusal) -> FFIBinding {
        if type == .log || word == "log" {
            guard type == .log, word == "log" else {
                throw .ffi(type == .log ? "\(label): a log parameter takes \"log\"" : "\(label): \"log\" is for a log parameter, not \(type.rawValue)")
            }
            return .log
        }
        if context == .lifecycle {
            throw .ffi("\(label): init and fini take literals and \"log\" only (a string literal is written {\"value\": \"...\"})")
        }
        if type == .json || word == "message" {
            guard word == "message", context == .message else {
                throw .ffi(type == .json ? "\(label): a json parameter takes \"message\", the whole message" : "\(label): \"message\" is for a data, background, screen or mismatch handler")
            }
            guard type == .json || type == .bytes else { throw .ffi("\(label): the whole message goes to a json or bytes parameter, not \(type.rawValue)") }
            return .message
        }
        if context == .token {
            guard word == "token" || word == "previous" else {
                throw .ffi("\(label): a token handler binds \"token\" or \"previous\", not \"\(word)\"")
            }
            guard type.isText else { throw .ffi("\(label): \(type.withArticle) cannot take \(word), which is always a string") }
            return word == "token" ? .token : .previous
        }
        guard let kind = FFIPathKind(path: word) else {
            throw .ffi("\(label): \"\(word)\" is not a path of a normalized message (id, target, format, priority, content_available, topic, collapse_key, notification.KEY, data.KEY, source.kind, source.line, source.file)")
        }
        if let refusal = kind.refusal(for: type) { throw .ffi("\(label): \(type.withArticle) cannot take \(word), \(refusal)") }
        return .path(word, default: nil)
    }

    /// A literal for a parameter of `type`, converted once.
    private func literal(_ value: JSONValue, type: FFIType, label: String) throws(PluginRefusal) -> FFILiteral {
        if type == .log || type == .json { throw .ffi("\(label): a \(type.rawValue) parameter takes no literal") }
        if type.isText {
            switch value.kind {
            case .string:
                let text = value.text
                if type == .string && text.utf8.contains(0) {
                    throw .ffi("\(label): the literal holds a NUL byte, where a string would end (a bytes parameter takes it whole)")
                }
                return .text(text)
            case .null: return .null
            default: throw .ffi("\(label): the literal for a \(type.rawValue) parameter is a string or null, not \(value.kind.withArticle)")
            }
        }
        let isBoolean = value.kind == .true || value.kind == .false
        guard value.kind == .number || (type == .bool && isBoolean) else {
            throw .ffi("\(label): the literal for a \(type.rawValue) parameter is \(type == .bool ? "true or false" : "a number"), not \(value.kind.withArticle)")
        }
        let text = value.text
        switch FFIConversion.bits(text, count: text.utf8.count, as: type) {
        case .success(let bits): return .scalar(bits, text: text)
        case .failure(let problem): throw .ffi("\(label): the literal \(text), \(problem.reason(for: type))")
        }
    }}

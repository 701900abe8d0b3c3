import CPushHost
import PushHostJSON
import PushHostRecords
import PushHostPlugins

/// What a scan's worker answers about the plugin file it loaded: one JSON
/// object after its length, `[u32 n, little-endian][n bytes]`, then nothing
/// (the worker ends).
///
/// ```
/// {"name":"cache","version":"1.0.0","description":"…","abi_major":1,"abi_minor":2,"handlers":["on_data"],"targets":[]}
/// {"name":"dedupe",…,"handlers":[],"targets":[],"extensions":["ph.interceptor/1","ph.chain/1"]}
/// {"name":"legacy",…,"libraries":["/opt/legacy/liblegacy.so"],"functions":[{"role":"data","signature":"int32_t legacy_check(…)"}]}
/// {"refused":"no ph_plugin_entry symbol (…)"}
/// ```
///
/// The plugin's constructor and entry run in that worker before it answers,
/// and can write anything to any of its descriptors, so the host reads the
/// answer as hostile: at most ``limit`` bytes, exactly one answer, UTF-8,
/// only the members above with the types above, and the descriptor checked
/// as ``PluginDescriptor/read(_:)`` checks one in the host. What does not
/// pass refuses the plugin (``PluginRefusal/malformedScan(_:)``), saying
/// what was wrong.
enum ScanAnswer {
    /// The most bytes an answer may have.
    static let limit = 1 << 20

    /// The bytes a worker sends for `descriptor`, its length first.
    static func encode(_ descriptor: PluginDescriptor) -> [UInt8] {
        var line = JSONLine()
        line.string("name", descriptor.name)
        line.string("version", descriptor.version)
        line.string("description", descriptor.summary)
        line.number("abi_major", Int(descriptor.abiMajor))
        line.number("abi_minor", Int(descriptor.abiMinor))
        line.strings("handlers", PluginHandler.descriptorHandlers.filter(descriptor.handlers.contains).map(\.name))
        line.strings("targets", descriptor.targets)
        if let extensions = descriptor.extensions, !descriptor.isManifest { line.strings("extensions", extensions) }
        if let manifest = descriptor.manifest {
            line.strings("libraries", manifest.libraries)
            line.objects("functions", manifest.signatures) { object, function in
                object.string("role", function.role)
                object.string("signature", function.signature)
            }
        }
        return framed(line.closed())
    }

    /// The bytes a worker sends for a plugin it refused.
    static func encode(refusal: PluginRefusal) -> [UInt8] {
        var line = JSONLine()
        line.string("refused", refusal.description)
        return framed(line.closed())
    }

    private static func framed(_ json: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: UInt32(json.count).littleEndian) { Array($0) } + json
    }

    /// The descriptor (or the refusal) that all of `bytes`, what the
    /// worker scanning the plugin `file` sent, say; `.malformedScan` for
    /// anything a worker does not send.
    static func read(_ bytes: [UInt8], file: String) throws(PluginRefusal) -> PluginDescriptor {
        guard bytes.count >= 4 else { throw .malformedScan("an answer of \(bytes.count) bytes, too few for its length") }
        let length = Int(bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) })
        guard length <= limit else { throw .malformedScan("an answer that says \(length) bytes, more than the \(limit) a scan may send") }
        guard bytes.count - 4 >= length else { throw .malformedScan("an answer cut short: \(bytes.count - 4) bytes where it says \(length)") }
        guard bytes.count - 4 == length else { throw .malformedScan("\(bytes.count - 4 - length) bytes after its answer, where it ends") }
        var reader = JSONReader(maxDepth: 4)
        return try bytes.withUnsafeBytes { buffer in
            Result { () throws(PluginRefusal) -> PluginDescriptor in
                let document: JSONDocument
                do throws(JSONError) {
                    document = try reader.parse(UnsafeRawBufferPointer(rebasing: buffer[4...]))
                } catch {
                    throw .malformedScan("an answer that is not JSON: \(error.reason) at byte \(error.offset)")
                }
                return try ScanAnswerReader(manifest: file.hasSuffix(FFIManifest.suffix)).descriptor(document.root)
            }
        }.get()
    }
}

/// The checks of an answer's JSON, member by member.
private struct ScanAnswerReader {
    /// Whether the file scanned is an ffi manifest, whose answer lists its libraries and functions.
    let manifest: Bool

    func descriptor(_ root: JSONValue) throws(PluginRefusal) -> PluginDescriptor {
        guard root.kind == .object else { throw .malformedScan("an answer that is \(root.kind.withArticle), not an object") }
        var members: [String: JSONValue] = [:]
        var all = root.members
        while let (key, value) = all.next() {
            guard members.updateValue(value, forKey: key.text) == nil else { throw .malformedScan("the member \"\(key.text)\" twice") }
        }
        if let refused = members["refused"] {
            guard members.count == 1 else { throw .malformedScan("a refusal with other members") }
            let reason = try string(refused, "refused")
            guard !reason.isEmpty, !reason.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
                throw .malformedScan("a refusal that is empty or holds a control character")
            }
            throw .scanRefused(reason)
        }
        let known = ["name", "version", "description", "abi_major", "abi_minor", "handlers", "targets"]
            + (manifest ? ["libraries", "functions"] : ["extensions"])
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw .malformedScan("the unknown member \"\(unknown)\"")
        }
        func member(_ key: String) throws(PluginRefusal) -> JSONValue {
            guard let value = members[key] else { throw .malformedScan("no member \"\(key)\"") }
            return value
        }
        let name = try string(member("name"), "name")
        guard PluginDescriptor.isValidName(name) else { throw .malformedScan(PluginRefusal.badName(name).description) }
        let major = try number(member("abi_major"), "abi_major")
        let minor = try number(member("abi_minor"), "abi_minor")
        guard HostABI.accepts(major: major, minor: minor) else {
            throw .malformedScan("an ABI this host cannot serve: \(PluginRefusal.abiMismatch(major: major, minor: minor))")
        }
        var handlers: Set<PluginHandler> = []
        for text in try strings(member("handlers"), "handlers") {
            guard let handler = PluginHandler.descriptorHandlers.first(where: { $0.name == text }) else {
                throw .malformedScan("the unknown handler \"\(text)\"")
            }
            guard handlers.insert(handler).inserted else { throw .malformedScan("the handler \(text) twice") }
        }
        let listed = try strings(member("targets"), "targets")
        let targets: [String]
        do throws(PluginRefusal) {
            targets = try PluginDescriptor.checkTargets(listed, roles: PluginRole.roles(of: handlers))
        } catch {
            throw .malformedScan(error.description)
        }
        guard targets == listed else { throw .malformedScan("targets for a plugin that is no screen") }
        var extensions: [String]? = manifest ? [] : nil
        if let declared = members["extensions"] {
            let ids = try strings(declared, "extensions")
            guard ids.count <= PH_MAX_EXTENSIONS else { throw .malformedScan("more than \(PH_MAX_EXTENSIONS) extensions") }
            for (index, id) in ids.enumerated() {
                do throws(PluginRefusal) {
                    try PluginDescriptor.checkExtension(id, among: Array(ids[..<index]))
                } catch {
                    throw .malformedScan(error.description)
                }
            }
            extensions = ids
        }
        return PluginDescriptor(
            scannedName: name, version: try string(member("version"), "version"), summary: try string(member("description"), "description"),
            abiMajor: major, abiMinor: minor, handlers: handlers, targets: targets, extensions: extensions,
            manifest: manifest ? try listing(members) : nil)
    }

    /// A manifest's libraries and functions.
    private func listing(_ members: [String: JSONValue]) throws(PluginRefusal) -> PluginDescriptor.ManifestListing {
        guard let libraries = members["libraries"], let functions = members["functions"] else {
            throw .malformedScan("an ffi manifest's answer without \"libraries\" and \"functions\"")
        }
        guard functions.kind == .array else { throw .malformedScan("functions that are \(functions.kind.withArticle), not an array") }
        var signatures: [PluginDescriptor.Signature] = []
        var elements = functions.elements
        while let function = elements.next() {
            guard function.kind == .object, function.count == 2, let role = function.member(named: "role"), let signature = function.member(named: "signature") else {
                throw .malformedScan("a function that is not {\"role\": ..., \"signature\": ...}")
            }
            signatures.append(.init(role: try string(role, "a function's role"), signature: try string(signature, "a function's signature")))
        }
        return .init(libraries: try strings(libraries, "libraries"), signatures: signatures)
    }

    /// A string with no NUL, which no C string holds.
    private func string(_ value: JSONValue, _ what: String) throws(PluginRefusal) -> String {
        guard value.kind == .string else { throw .malformedScan("\(what) that is \(value.kind.withArticle), not a string") }
        let text = value.text
        guard !text.utf8.contains(0) else { throw .malformedScan("\(what) that holds a NUL") }
        return text
    }

    private func strings(_ value: JSONValue, _ what: String) throws(PluginRefusal) -> [String] {
        guard value.kind == .array else { throw .malformedScan("\(what) that is \(value.kind.withArticle), not an array") }
        var result: [String] = []
        var elements = value.elements
        while let element = elements.next() { result.append(try string(element, "one of \(what)")) }
        return result
    }

    /// A whole number that fits in 32 bits, in plain digits.
    private func number(_ value: JSONValue, _ what: String) throws(PluginRefusal) -> UInt32 {
        guard value.kind == .number, let number = UInt32(value.text) else { throw .malformedScan("\(what) that is not a number of 32 bits") }
        return number
    }
}

import PushHostJSON
import PushHostSystem

/// The reading a plugin manifest's JSON shares, whatever the manifest (an
/// ffi manifest, a process manifest): every problem is one line, made a
/// refusal by `refuse`, that names what is wrong and where.
struct ManifestJSON {
    let refuse: (String) -> PluginRefusal

    /// Parses the manifest at `path` and hands its root to `body`.
    func read<Value>(_ path: String, _ body: (JSONValue) throws(PluginRefusal) -> Value) throws(PluginRefusal) -> Value {
        let contents: [UInt8]?
        do throws(FileProblem) {
            contents = try RegularFile.read(path, links: .follow)
        } catch {
            throw refuse("manifest: \(error.description)")
        }
        guard let contents else { throw refuse("manifest: no such file") }
        var reader = JSONReader()
        return try contents.withUnsafeBytes { bytes in
            Result { () throws(PluginRefusal) -> Value in
                let document: JSONDocument
                do throws(JSONError) {
                    document = try reader.parse(bytes)
                } catch {
                    throw refuse("manifest: \(error.reason) at byte \(error.offset)")
                }
                return try body(document.root)
            }
        }.get()
    }

    /// The members of the object `value`, each of `allowed`.
    func members(_ value: JSONValue, of what: String, allowed: [String]) throws(PluginRefusal) -> [String: JSONValue] {
        guard value.kind == .object else { throw refuse("\(what) must be an object, not \(value.kind.withArticle)") }
        var keys: [String: JSONValue] = [:]
        var members = value.members
        while let (key, member) = members.next() {
            let name = key.text
            guard allowed.contains(name) else {
                throw refuse("\(what): unknown key \"\(name)\" (keys: \(allowed.joined(separator: ", ")))")
            }
            keys[name] = member
        }
        return keys
    }

    func string(_ value: JSONValue, _ what: String) throws(PluginRefusal) -> String {
        guard value.kind == .string else { throw refuse("\(what) must be a string, not \(value.kind.withArticle)") }
        return value.text
    }

    func strings(_ value: JSONValue, _ what: String) throws(PluginRefusal) -> [String] {
        guard value.kind == .array else { throw refuse("\(what) must be an array of strings, not \(value.kind.withArticle)") }
        var result: [String] = []
        var elements = value.elements
        while let element = elements.next() { result.append(try string(element, what)) }
        return result
    }
}

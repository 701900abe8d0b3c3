#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import PushHostRecords

/// What a plugin's `ph_plugin` descriptor says, read only as far as its
/// `struct_size` reaches.
///
/// A plugin built against an older 1.x header has a smaller descriptor; the
/// host copies the part that `struct_size` covers into a zeroed `ph_plugin`,
/// so the fields the plugin does not know about read as NULL and no byte past
/// its descriptor is ever touched.
///
/// A descriptor read by a scan in a worker (``ScanAnswer``) has the same
/// facts but no functions: its `raw` is zero, and the plugin's library has
/// not been opened in this process.
package struct PluginDescriptor {
    /// The covered part of the descriptor; later fields are zero.
    package var raw: ph_plugin
    package let abiMajor: UInt32
    package let abiMinor: UInt32
    package let name: String
    package let version: String
    package let summary: String
    package let targets: [String]
    let roles: [PluginRole]
    /// The extension ids it declares it offers and uses (ABI 1.2), in its
    /// order; nil when it declares none (an older plugin, or `NULL`), so
    /// that they are known only once it runs. An ffi manifest declares none.
    package let extensions: [String]?
    /// The handlers the descriptor fills in (the functions themselves are in `raw`).
    package let handlers: Set<PluginHandler>
    /// The plugin an ffi manifest makes, whose `start` takes the place of `create`.
    var ffi: FFIPlugin?
    /// The program a process manifest starts; such a plugin always runs in a process of its own.
    package let process: ProcessManifest?
    /// What `pushhost plugins` shows of an ffi manifest: nil for a shared library.
    package let manifest: ManifestListing?
    /// Whether it was read by a scan in a worker, so that `raw` holds no function.
    let isScanned: Bool

    /// An ffi manifest's libraries and its functions' signatures, as listed.
    package struct ManifestListing: Equatable {
        package let libraries: [String]
        package let signatures: [Signature]

        package init(libraries: [String], signatures: [Signature]) {
            self.libraries = libraries
            self.signatures = signatures
        }
    }

    /// One function of a manifest, as listed: `data`, `int32_t legacy_check(...)`.
    package struct Signature: Equatable {
        package let role: String
        package let signature: String

        package init(role: String, signature: String) {
            self.role = role
            self.signature = signature
        }
    }

    package var isManifest: Bool { manifest != nil }

    /// What `opened`, the descriptor of this scanned plugin as opened in this
    /// process, says otherwise than the scan did, or nil when nothing.
    func difference(from opened: PluginDescriptor) -> String? {
        func differs<Value: Equatable>(_ what: String, _ scanned: Value, _ now: Value) -> String? {
            scanned == now ? nil : "\(what) \(String(reflecting: now)), where its scan read \(String(reflecting: scanned))"
        }
        return differs("the name", name, opened.name)
            ?? differs("the version", version, opened.version)
            ?? differs("the description", summary, opened.summary)
            ?? differs("the ABI", "\(abiMajor).\(abiMinor)", "\(opened.abiMajor).\(opened.abiMinor)")
            ?? differs("the handlers", handlers.map(\.name).sorted(), opened.handlers.map(\.name).sorted())
            ?? differs("the targets", targets, opened.targets)
            ?? differs("the extensions", extensions, opened.extensions)
            ?? differs("the functions", manifest?.signatures.map(\.signature) ?? [], opened.manifest?.signatures.map(\.signature) ?? [])
    }

    /// The bytes every ABI 1.x descriptor has: up to and including `name`.
    static let minimumSize = MemoryLayout<ph_plugin>.offset(of: \.name)! + MemoryLayout<UnsafePointer<CChar>?>.size

    /// Reads and checks the descriptor at `pointer`.
    static func read(_ pointer: UnsafeRawPointer) throws(PluginRefusal) -> PluginDescriptor {
        let structSize = pointer.load(as: UInt32.self)
        let versionEnd = MemoryLayout<ph_plugin>.offset(of: \.abi_minor)! + MemoryLayout<UInt32>.size
        guard structSize >= versionEnd else { throw .descriptorTooSmall(structSize: structSize) }
        let major = pointer.load(fromByteOffset: MemoryLayout<ph_plugin>.offset(of: \.abi_major)!, as: UInt32.self)
        let minor = pointer.load(fromByteOffset: MemoryLayout<ph_plugin>.offset(of: \.abi_minor)!, as: UInt32.self)
        guard HostABI.accepts(major: major, minor: minor) else { throw .abiMismatch(major: major, minor: minor) }
        guard structSize >= minimumSize else { throw .descriptorTooSmall(structSize: structSize) }

        var raw = ph_plugin()
        withUnsafeMutableBytes(of: &raw) { destination in
            let count = min(Int(structSize), destination.count)
            destination.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: count))
        }

        let name = raw.name.map { String(cString: $0) }
        guard let name, isValidName(name) else { throw .badName(name) }
        let roles = PluginRole.roles(of: raw)
        let targets = try checkTargets(readTargets(raw.targets), roles: roles)
        return PluginDescriptor(
            raw: raw,
            abiMajor: major,
            abiMinor: minor,
            name: name,
            version: raw.version.map { String(cString: $0) } ?? "",
            summary: raw.description.map { String(cString: $0) } ?? "",
            targets: targets,
            roles: roles,
            extensions: try readExtensions(raw.extensions),
            ffi: nil
        )
    }

    /// The targets a plugin in `roles` keeps of those it lists: a screen
    /// must list at least one, none empty; another plugin keeps none.
    package static func checkTargets(_ targets: [String], roles: [PluginRole]) throws(PluginRefusal) -> [String] {
        guard roles.contains(.screen) else { return [] }
        guard !targets.isEmpty else { throw .noTargets }
        guard !targets.contains("") else { throw .emptyTarget }
        return targets
    }

    /// The source of the host's own log lines, which no plugin may take.
    package static let hostName = "pushhost"

    /// A name is one or more of `a-z`, `0-9`, `_` and `-`, and not the host's.
    package static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name != hostName && name.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// The ids of a declared `extensions` list, nil for a NULL list: at most
    /// `PH_MAX_EXTENSIONS`, each one this host knows, none twice.
    private static func readExtensions(_ list: UnsafePointer<UnsafePointer<CChar>?>?) throws(PluginRefusal) -> [String]? {
        guard let list else { return nil }
        var count = 0
        while list[count] != nil {
            guard count < PH_MAX_EXTENSIONS else { throw .badExtensions("more than \(PH_MAX_EXTENSIONS) ids, or no NULL after them") }
            count += 1
        }
        var ids: [String] = []
        for index in 0..<count {
            let id = String(cString: list[index]!)
            try checkExtension(id, among: ids)
            ids.append(id)
        }
        return ids
    }

    /// Refuses `id` as a declared extension after `earlier`: one this host
    /// does not know, or one declared twice.
    package static func checkExtension(_ id: String, among earlier: [String]) throws(PluginRefusal) {
        guard HostABI.extensions.contains(id) else {
            throw .badExtensions("\(String(reflecting: id)) is no extension this host knows (\(HostABI.extensions.joined(separator: ", ")))")
        }
        guard !earlier.contains(id) else { throw .badExtensions("\(id) is declared twice") }
    }

    /// The strings of a NULL-terminated list, or none for a NULL list.
    private static func readTargets(_ list: UnsafePointer<UnsafePointer<CChar>?>?) -> [String] {
        guard let list else { return [] }
        var targets: [String] = []
        var index = 0
        while let target = list[index] {
            targets.append(String(cString: target))
            index += 1
        }
        return targets
    }
}

// In an extension, so that the memberwise initializer stays for both.
extension PluginDescriptor {
    /// The descriptor of a plugin opened in this process: `raw` says which
    /// handlers it has, `ffi` is the plugin a manifest makes.
    init(
        raw: ph_plugin, abiMajor: UInt32, abiMinor: UInt32, name: String, version: String, summary: String, targets: [String],
        roles: [PluginRole], extensions: [String]?, ffi: FFIPlugin?
    ) {
        let manifest = ffi.map { ManifestListing(libraries: $0.libraries, signatures: $0.signatures.map { Signature(role: $0.role, signature: $0.signature) }) }
        self.init(
            raw: raw, abiMajor: abiMajor, abiMinor: abiMinor, name: name, version: version, summary: summary, targets: targets, roles: roles,
            extensions: extensions, handlers: PluginHandler.filled(in: raw), ffi: ffi, process: nil, manifest: manifest, isScanned: false)
    }

    /// The descriptor a scan read in a worker, checked as ``read(_:)``
    /// checks one in this process (``ScanAnswer`` does).
    package init(
        scannedName name: String, version: String, summary: String, abiMajor: UInt32, abiMinor: UInt32, handlers: Set<PluginHandler>,
        targets: [String], extensions: [String]?, manifest: ManifestListing?
    ) {
        self.init(
            raw: ph_plugin(), abiMajor: abiMajor, abiMinor: abiMinor, name: name, version: version, summary: summary, targets: targets,
            roles: PluginRole.roles(of: handlers), extensions: extensions, handlers: handlers, ffi: nil, process: nil, manifest: manifest, isScanned: true)
    }
}

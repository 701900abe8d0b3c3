#if canImport(Glibc)
import Glibc
#endif
import CPushHost

/// What a plugin's `ph_plugin` descriptor says, read only as far as its
/// `struct_size` reaches.
///
/// A plugin built against an older 1.x header has a smaller descriptor; the
/// host copies the part that `struct_size` covers into a zeroed `ph_plugin`,
/// so the fields the plugin does not know about read as NULL and no byte past
/// its descriptor is ever touched.
struct PluginDescriptor {
    /// The covered part of the descriptor; later fields are zero.
    var raw: ph_plugin
    let abiMajor: UInt32
    let abiMinor: UInt32
    let name: String
    let version: String
    let summary: String
    let targets: [String]
    let roles: [PluginRole]
    /// The plugin an ffi manifest makes, whose `start` takes the place of `create`.
    var ffi: FFIPlugin?

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
        let targets = readTargets(raw.targets)
        if roles.contains(.screen) {
            guard !targets.isEmpty else { throw .noTargets }
            guard !targets.contains("") else { throw .emptyTarget }
        }
        return PluginDescriptor(
            raw: raw,
            abiMajor: major,
            abiMinor: minor,
            name: name,
            version: raw.version.map { String(cString: $0) } ?? "",
            summary: raw.description.map { String(cString: $0) } ?? "",
            targets: roles.contains(.screen) ? targets : [],
            roles: roles,
            ffi: nil
        )
    }

    /// A name is one or more of `a-z`, `0-9`, `_` and `-`.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
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

#if canImport(Glibc)
import Glibc
import PushHostSystem
#endif

/// Where a D-Bus bus listens, as the host's environment says it
/// (`DBUS_SESSION_BUS_ADDRESS`, `DBUS_SYSTEM_BUS_ADDRESS`, or their
/// defaults), and a connection to it (`ph.bus/1`, ``BusAccess``).
///
/// An address is entries separated by `;`, each `TRANSPORT:KEY=VALUE,...`
/// with `%XX` escapes; the `unix` entries with a `path` or an `abstract`
/// name are tried in order, and any other entry (tcp, a server's tmpdir)
/// is passed over.
enum BusAddress {
    /// One socket a bus listens on.
    enum Socket: Equatable {
        case path(String)
        case abstract(String)
    }

    /// The buses a plugin may name.
    static let names: Set<String> = ["session", "system"]

    /// The address of `bus` from this process's environment.
    static func address(of bus: String) -> String {
        if bus == "system" { return environment("DBUS_SYSTEM_BUS_ADDRESS") ?? "unix:path=/run/dbus/system_bus_socket" }
        if let address = environment("DBUS_SESSION_BUS_ADDRESS") { return address }
        return environment("XDG_RUNTIME_DIR").map { "unix:path=\($0)/bus" } ?? ""
    }

    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The sockets of `address`, in its order.
    static func sockets(in address: String) -> [Socket] {
        address.split(separator: ";").compactMap { entry in
            guard entry.hasPrefix("unix:") else { return nil }
            for pair in entry.dropFirst(5).split(separator: ",") {
                guard let equals = pair.firstIndex(of: "="), let value = unescaped(pair[pair.index(after: equals)...]) else { continue }
                switch pair[..<equals] {
                case "path": return .path(value)
                case "abstract": return .abstract(value)
                default: continue
                }
            }
            return nil
        }
    }

    /// `text` with its `%XX` escapes decoded; nil when one is malformed.
    private static func unescaped(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            index = utf8.index(after: index)
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.distance(from: index, to: utf8.endIndex) >= 2,
                  let high = hexValue(utf8[index]), let low = hexValue(utf8[utf8.index(after: index)])
            else { return nil }
            bytes.append(high << 4 | low)
            index = utf8.index(index, offsetBy: 2)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A socket connected to `bus` (close-on-exec), or the `errno` of the
    /// last attempt (ENOENT when its address names no socket).
    static func connect(_ bus: String) -> Result<Int32, Errno> {
        var failure = ENOENT
        for socket in sockets(in: address(of: bus)) {
            switch connect(socket) {
            case .success(let fd): return .success(fd)
            case .failure(let error): failure = error.code
            }
        }
        return .failure(Errno(failure))
    }

    private static func connect(_ socket: Socket) -> Result<Int32, Errno> {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes: [UInt8]
        switch socket {
        case .path(let path): bytes = Array(path.utf8)
        case .abstract(let name): bytes = [0] + Array(name.utf8)
        }
        // A path needs its terminating zero; an abstract name is as long as it is.
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity || (bytes.first == 0 && bytes.count <= capacity) else {
            return .failure(Errno(ENAMETOOLONG))
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(Errno(errno)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
        }
        guard connected == 0 else {
            let failure = errno
            close(fd)
            return .failure(Errno(failure))
        }
        return .success(fd)
    }
}

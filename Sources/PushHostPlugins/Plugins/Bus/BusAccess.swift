#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import CSandbox
import Synchronization

/// How a plugin's `ph.bus/1` connects (``BusAddress``): in the host and in
/// a worker without walls, itself, to any bus; behind walls, where the
/// worker makes no Unix socket, by asking the host over its broker socket
/// (``BusBroker``) for the bus its settings grant, and for no other.
package enum BusAccess: @unchecked Sendable {
    case direct
    /// The bus granted, and the worker's end of the broker socket.
    case broker(granted: String, BusBrokerClient)
    /// Walls and no bus granted.
    case refused

    /// A socket connected to `bus`, or -1 with errno set.
    func connect(_ bus: String) -> Int32 {
        guard BusAddress.names.contains(bus) else { return failing(EINVAL) }
        switch self {
        case .direct:
            switch BusAddress.connect(bus) {
            case .success(let fd): return fd
            case .failure(let error): return failing(error.code)
            }
        case .broker(let granted, let client):
            return bus == granted ? client.connect(bus) : failing(EACCES)
        case .refused:
            return failing(EACCES)
        }
    }

    /// `ph.bus/1`, the same for every plugin (told apart by its host table).
    nonisolated(unsafe) static let table: UnsafeMutablePointer<ph_bus> = {
        let table = UnsafeMutablePointer<ph_bus>.allocate(capacity: 1)
        table.initialize(to: ph_bus(
            struct_size: UInt32(MemoryLayout<ph_bus>.size),
            connect: { host, bus in PluginContext.of(host).bus.connect(String(cString: bus)) }
        ))
        return table
    }()
}

/// Sets errno, and gives -1.
private func failing(_ code: Int32) -> Int32 {
    errno = code
    return -1
}

/// [in a walled worker] The worker's end of its broker socket (fd
/// ``fd``): one request at a time, a byte naming the bus; the answer, an
/// errno and the connected socket.
package final class BusBrokerClient: Sendable {
    /// The broker socket's number in a worker whose plugin is granted a bus.
    package static let fd: Int32 = 6
    /// The request bytes.
    static let requests: [String: UInt8] = ["session": 1, "system": 2]

    private let asking = Mutex(())

    package init() {}

    func connect(_ bus: String) -> Int32 {
        asking.withLock { _ in
            var request = Self.requests[bus] ?? 0
            guard send(Self.fd, &request, 1, Int32(MSG_NOSIGNAL)) == 1 else { return -1 }
            var answer: Int32 = 0
            let fd = ph_receive_descriptor(Self.fd, &answer)
            if fd == -2 { return -1 }
            guard answer == 0, fd >= 0 else {
                if fd >= 0 { close(fd) }
                return failing(answer == 0 ? EPROTO : answer)
            }
            return fd
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import CSandbox
import PushHostSystem

/// The host's end of a walled worker's broker socket (``BusBrokerClient``):
/// a thread of its own connects, for each request, to the bus the plugin's
/// settings grant, and hands the socket over; a request for another bus,
/// or a byte that is no request, is answered EACCES. The worker asks; it
/// never names an address.
package enum BusBroker {
    /// Serves the requests that come on `socket` (closed at its end) for the
    /// plugin granted `bus`, until the worker is gone.
    package static func serve(_ socket: Int32, bus: String) {
        DetachedThread.startOrFail {
            defer { close(socket) }
            var request: UInt8 = 0
            while true {
                let count = recv(socket, &request, 1, 0)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { return }
                guard BusBrokerClient.requests[bus] == request else {
                    _ = ph_send_descriptor(socket, EACCES, -1)
                    continue
                }
                switch BusAddress.connect(bus) {
                case .success(let fd):
                    _ = ph_send_descriptor(socket, 0, fd)
                    close(fd)
                case .failure(let error):
                    _ = ph_send_descriptor(socket, error.code, -1)
                }
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// SIGHUP (`systemctl reload`), turned into a readable pipe the run loop
/// polls: the handler only writes a byte, and the loop reloads the plugins
/// between two turns. Signals that come during a reload leave the pipe
/// readable, and make one reload after it.
package enum ReloadSignal {
    /// The pipe the handler writes to; set once, before the handler goes in.
    nonisolated(unsafe) private static var pipe: WakePipe?

    /// Installs the handler (once; later calls return the same end) and
    /// returns the end to poll. From then on SIGHUP no longer ends the process.
    package static func install() -> Int32 {
        if let pipe { return pipe.readEnd }
        let wake = WakePipe()
        pipe = wake
        installHandler({ _ in ReloadSignal.pipe?.wake() }, for: [SIGHUP])
        return wake.readEnd
    }

    /// Takes the signals that came: whether any did.
    package static func take() -> Bool {
        guard let pipe else { return false }
        var byte: UInt8 = 0
        guard read(pipe.readEnd, &byte, 1) == 1 else { return false }
        pipe.drain()
        return true
    }
}

/// A `poll` timeout in milliseconds, where -1 means no timeout.
package enum PollWait {
    /// The sooner of two timeouts, either of which may be -1 (none).
    package static func sooner(_ a: Int32, _ b: Int32) -> Int32 {
        a < 0 ? b : b < 0 ? a : min(a, b)
    }
}

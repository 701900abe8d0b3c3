import CPushHost

/// Where a plugin's `ph.intake/1` hands its records: the host's queue
/// (``PluginSubmissions``), or, for a plugin in a worker, the channel to
/// the host (``WorkerIntake``).
package protocol RecordSubmitter: AnyObject, Sendable {
    /// [any thread] Hands over a copy of `bytes` from `plugin`, with the
    /// flags of `submit_record`, which reached its transport at `arrival`
    /// (Unix milliseconds; 0: now); `done` is called only for a record taken.
    func submit(
        _ bytes: UnsafeRawBufferPointer, from plugin: String, flags: UInt32, arrival: Int64, done: ph_record_done?,
        context: UnsafeMutableRawPointer?
    ) -> PluginSubmissions.Answer
}

// PushHostCore: the host: the plugins loaded and created in the host or in
// workers, a pipeline wired to them (Host), the dispatch thread's loop
// (RunLoop), the watchdog, logs, a dry run of a plugin folder, the listing
// `pushhost plugins` prints, and what `pushhost new plugin` writes
// (Template). The command line (Sources/pushhost) uses it.
// It may import every pushhost target.

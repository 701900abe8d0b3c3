// PushHostPlugins: a plugin as the host knows it, wherever it runs: its
// descriptor read from a library or an ffi manifest, its settings and grants,
// the catalog of a plugin folder with its refusals, a created plugin and the
// `ph_host` it calls back through (intake, state, metrics, bus), a plugin
// that runs elsewhere as a protocol (RemotePlugin); and the record a handler
// call is about (InFlight), with its verdicts.
// It may import PushHostMessage, PushHostIntake, PushHostRecords,
// PushHostJSON and PushHostSystem, and no other pushhost target.

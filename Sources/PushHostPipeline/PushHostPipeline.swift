// PushHostPipeline: the stages a record goes through, in order: the
// interceptors, the data stage, the app state and its host events, the UI
// route, actions and the delivered store, the report line, and --metrics;
// and the Pipeline that carries every record through them (Pipeline.make
// builds it). A stage calls handlers through PushHostPort only: it never
// learns where a plugin runs.
// It may import PushHostPort and the targets below it; never
// PushHostIsolation.

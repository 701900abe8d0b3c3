// PushHostIsolation: plugins in worker processes (--isolate), the port's
// implementation elsewhere: the worker as the host calls it (Worker, a
// RemotePlugin) and all of them together (Workers), the rings and frames
// between them, restarts, the walls a worker stands behind and the grants
// that open them, scans of plugin files in workers, a worker's records and
// output crossing to the host, and the inside of a worker (WorkerLoop).
// It may import PushHostPort and the targets below it; never
// PushHostPipeline.

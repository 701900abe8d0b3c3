/// The order of UI calls across the workers and the host, kept in one
/// place: a route whose handlers run in a worker is posted and goes on; a
/// handler in the host, or a route into another worker, first waits for
/// the UI calls under way (`settle`).
extension Workers: CallOrder {
    func beforeCall(ofPlugin plugin: Int32) {
        if hasUIUnderWay && worker(ofPlugin: plugin) == nil { settle() }
    }

    func beforeRoute(calling called: [Int32]) {
        guard hasUIUnderWay, let first = called.first else { return }
        let worker = worker(ofPlugin: first)
        if worker == nil || worker !== uiWorker || called.contains(where: { self.worker(ofPlugin: $0) !== worker }) {
            settle()
        }
    }
}

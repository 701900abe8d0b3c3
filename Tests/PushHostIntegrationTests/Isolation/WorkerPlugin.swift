import Foundation

extension PluginSource {
    /// The C source of the worker plugin named `name` for `--isolate` tests,
    /// with the handlers of the data, background, foreground, token and
    /// action roles among `roles`: it writes a line for every call to the
    /// file at its `log` setting, and misbehaves (crashes, hangs, leaks,
    /// forges frames) as a message's `data.fault` says
    /// (Tests/Fixtures/plugins/worker.c says which lines and which faults).
    static func worker(name: String, roles: Set<ProbeRole>, targets: [String] = []) throws -> String {
        try fixture("worker", defines: [#"NAME "\#(name)""#] + roleDefines(roles.subtracting([.interceptor]), targets: targets))
    }
}

/// One line of a worker plugin's log (see `PluginSource.worker`).
struct WorkerLine: CustomStringConvertible, Sendable {
    let text: String
    let fields: [String]

    init(_ text: String) {
        self.text = text
        fields = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
    }

    /// The first field: create, destroy, ask, complete, or the handler.
    var kind: String { fields.first ?? "" }
    /// Whether this is a handler call (`on_...`).
    var isCall: Bool { kind.hasPrefix("on_") }
    /// The message id (the new token for on_token); "" for create and destroy.
    var id: String { kind == "create" || kind == "destroy" || fields.count < 2 ? "" : fields[1] }
    /// `HANDLER ID` (as `faultyCalls` reads), or the kind alone for create and destroy.
    var call: String { id.isEmpty ? kind : "\(kind) \(id)" }

    /// The process that wrote the line (nil for `ask`).
    var pid: Int32? {
        switch kind {
        case "create", "destroy": fields.count > 1 ? Int32(fields[1]) : nil
        case "ask": nil
        default: fields.count > 2 ? Int32(fields[2]) : nil
        }
    }

    /// Its parent (nil for `ask` and `destroy`).
    var ppid: Int32? {
        switch kind {
        case "create": fields.count > 2 ? Int32(fields[2]) : nil
        case "destroy", "ask": nil
        default: fields.count > 3 ? Int32(fields[3]) : nil
        }
    }

    var description: String { text }
}

extension Scratch {
    /// Builds the worker plugin `name` (as `name.so`, so its settings file is
    /// `name.json`) and returns the `run` arguments that load it, with its
    /// `log` at `name.log` unless `settings` says otherwise.
    func worker(
        _ name: String, _ roles: Set<ProbeRole>, targets: [String] = [], settings: [String: String] = [:]
    ) throws -> [String] {
        let path = try plugin(name + ".so", PluginSource.worker(name: name, roles: roles, targets: targets))
        return loading(path, as: name, writing(settings, to: file(name + ".log")))
    }

    /// The worker plugin named `worker`, as above.
    func worker(_ roles: Set<ProbeRole>, targets: [String] = [], settings: [String: String] = [:]) throws -> [String] {
        try worker("worker", roles, targets: targets, settings: settings)
    }

    /// The lines of the worker plugin `name`'s log (or of the file `log`).
    func workerLines(_ name: String = "worker", log: String? = nil) -> [WorkerLine] {
        read(log ?? name + ".log").split(separator: "\n").map { WorkerLine(String($0)) }
    }

    /// Its handler calls only.
    func workerCalls(_ name: String = "worker", log: String? = nil) -> [WorkerLine] {
        workerLines(name, log: log).filter(\.isCall)
    }

    /// Its `ask` answers, as `QUERY=ANSWER` for message `id`.
    func workerAnswers(_ id: String, _ name: String = "worker", log: String? = nil) -> [String] {
        workerLines(name, log: log).filter { $0.kind == "ask" && $0.id == id }.map { $0.fields.dropFirst(2).joined(separator: " ") }
    }
}

extension Array where Element == WorkerLine {
    /// The lines cut where the writing process changes (ask lines go with
    /// the line before them): one run of lines per worker, in order.
    var byProcess: [(pid: Int32, lines: [WorkerLine])] {
        var runs: [(pid: Int32, lines: [WorkerLine])] = []
        for line in self {
            guard let pid = line.pid else {
                if !runs.isEmpty { runs[runs.count - 1].lines.append(line) }
                continue
            }
            if runs.last?.pid == pid {
                runs[runs.count - 1].lines.append(line)
            } else {
                runs.append((pid, [line]))
            }
        }
        return runs
    }
}

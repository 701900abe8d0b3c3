import Foundation
import Testing

/// A transport's worker process under `--isolate all` (docs/running.md,
/// crash isolation): a child of the host, started from any of its threads,
/// whose command line is `pushhost worker --plugin FILE ...`. The desktop,
/// unifiedpush and nats tests find it here to show that the transport ran
/// there, and to crash it.
enum TransportWorker {
    /// The pids of the worker processes of `host` that serve the plugin
    /// `file`: its children, or, for a walled worker, the child of the
    /// process that stands in for it in its namespaces (the host's child).
    static func pids(of host: pid_t, plugin file: String) -> [pid_t] {
        children(of: host).filter { serves($0, file) }.compactMap { child in
            standsIn(child) ? children(of: child).first { serves($0, file) } : child
        }
    }

    /// Whether `process` is the first of a PID namespace of its own (its `NSpid` has two numbers, the second 1).
    private static func standsIn(_ process: pid_t) -> Bool {
        let status = (try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("NSpid:") } ?? ""
        let numbers = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst()
        return numbers.count == 2 && numbers.last == "1"
    }

    private static func children(of process: pid_t) -> [pid_t] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process)/task")) ?? []
        return tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/\(process)/task/\(task)/children", encoding: .utf8)) ?? "")
                .split(separator: " ").compactMap { pid_t($0) }
        }
    }

    /// Whether the command line of `process` is `pushhost worker ... --plugin FILE ...`.
    private static func serves(_ process: pid_t, _ file: String) -> Bool {
        let words = FileManager.default.contents(atPath: "/proc/\(process)/cmdline")?
            .split(separator: 0).map { String(decoding: $0, as: UTF8.self) } ?? []
        return words.dropFirst().first == "worker" && zip(words, words.dropFirst()).contains { $0 == "--plugin" && $1 == file }
    }

    /// Waits until `host` has one worker for `file` and it is not
    /// `previous` (a worker that crashed); its pid, or nil after 20 s.
    static func find(_ host: HostProcess, plugin file: String, replacing previous: pid_t? = nil) -> pid_t? {
        var found: [pid_t] = []
        eventually(timeout: .seconds(20)) {
            found = pids(of: host.pid, plugin: file)
            return found.count == 1 && found != previous.map { [$0] }
        }
        return found.count == 1 && found != previous.map { [$0] } ? found[0] : nil
    }

    /// The run arguments of an isolated run (`--isolate all`) behind walls
    /// (`--sandbox on`), the plugin `name` granted `grants` (`KEY=VALUE`,
    /// as its settings would grant them); none when not `isolated`.
    static func walled(_ isolated: Bool, _ name: String, grants: [String]) -> [String] {
        guard isolated else { return [] }
        return ["--isolate", "all", "--sandbox", "on"] + grants.flatMap { ["--set", "\(name).sandbox.\($0)"] }
    }

    /// Whether `host` runs the plugin `file` as it should: in a worker of
    /// its own when `isolated`, else in no worker at all.
    static func runs(_ host: HostProcess, plugin file: String, isolated: Bool) -> Bool {
        isolated ? find(host, plugin: file) != nil : pids(of: host.pid, plugin: file).isEmpty
    }

    /// SIGSEGV to the worker `pid`, as a bug in its plugin would: the host's
    /// error line for it, `plugin NAME crashed ...: SIGSEGV; restarting its
    /// worker in 0.1s ...`, once it came (nil after 20 s).
    static func crash(_ pid: pid_t, of host: HostProcess, plugin name: String) -> String? {
        kill(pid, SIGSEGV)
        var line: String?
        eventually(timeout: .seconds(20)) {
            line = host.stderr.split(separator: "\n").last { $0.hasPrefix("error pushhost: plugin \(name) crashed ") }.map(String.init)
            return line != nil
        }
        return line
    }
}

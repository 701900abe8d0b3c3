import Foundation
import Testing

/// A plugin's settings reach its worker on the worker's standard input,
/// never on its command line, which every user of the machine can read
/// (`ps`, `/proc/PID/cmdline`): a secret among them stays out of both the
/// worker's and the process's that stands in for it, and the plugin still
/// gets it.
@Suite struct WorkerSettingsTests {
    @Test func aSettingIsNotOnAnyCommandLine() throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("intruder.so", try PluginSource.fixture("intruder"))
        let secret = "hunter2-\(UInt32.random(in: 0...UInt32.max))"
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--plugin", plugin, "--isolate", "intruder",
             "--set", "intruder.try=forge:\(secret)", "--set", "intruder.token=\(secret)"],
            errorPath: scratch.file("stderr"), input: input)
        #expect(host.waitForStderr("plugin intruder: \(secret)"), "the plugin got its setting: \(host.stderr)")
        let worker = try #require(TransportWorker.find(host, plugin: plugin), "\(host.stderr)")
        let standIn = try String(contentsOfFile: "/proc/\(worker)/stat", encoding: .utf8).split(separator: " ")[3]
        for pid in [String(worker), String(standIn)] {
            let words = try #require(FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"))
            let line = String(decoding: words.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
            #expect(line.contains("worker") && !line.contains(secret), "\(pid): \(line)")
        }
        try input.fileHandleForWriting.close()
        #expect(host.waitForExit() == .status(0), "\(host.stderr)")
    }
}

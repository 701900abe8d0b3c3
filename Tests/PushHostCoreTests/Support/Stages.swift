import Foundation
import Logging
@testable import PushHostCore
@testable import PushHostPipeline
@testable import PushHostPort
@testable import PushHostPlugins
@testable import PushHostSystem
@testable import PushHostIntake
@testable import PushHostRecords

struct StageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The stages of one run, built as `Host` builds them (``Pipeline/make``) but without a host
/// process, a spool or a run loop: the test feeds `pipeline` records
/// itself, on its own thread (the dispatch thread here), and reads the
/// report file back.
final class Stages {
    let folder: TestFolder
    let plugins: PluginSet
    let pipeline: Pipeline
    let libraries: [String: UnsafeMutableRawPointer]
    private let reportPath: String

    /// Loads the libraries at `paths` (kept by their file names without
    /// `.so`, to look their exported functions up), with `options` and a
    /// report file in `folder`.
    init(_ paths: [String], in folder: TestFolder, options: RunOptions = RunOptions()) throws {
        self.folder = folder
        reportPath = folder.path + "/report.ndjson"
        var options = options
        options.report = reportPath
        let logger = Logger(label: "pushhost")
        let tokens = try TokenStore(directory: folder.path + "/state", logger: logger)
        let journal = try CrashJournal(path: nil)
        plugins = try PluginSet(
            catalog: PluginCatalog(paths: paths), overrides: [], skipBad: false, tokens: tokens,
            submissions: PluginSubmissions(limit: options.maxPending, maxBytes: options.maxBytes), chain: ChainAPI.table,
            logger: logger)
        journal.name(plugins: plugins.instances.map(\.name))
        do {
            pipeline = try Pipeline.make(
                plugins: plugins, tokens: tokens, report: try Report(destination: reportPath), options: options, journal: journal, logger: logger)
        } catch {
            plugins.destroyAll()
            throw error
        }
        var libraries: [String: UnsafeMutableRawPointer] = [:]
        for path in paths {
            // The library the catalog loaded: dlopen finds it by its path.
            guard let handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD) else { throw StageError("\(path) is not loaded") }
            libraries[URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent] = handle
        }
        self.libraries = libraries
    }

    deinit {
        plugins.destroyAll()
        for handle in libraries.values { dlclose(handle) }
    }

    /// Feeds `text` to the pipeline as line `line` of standard input.
    func take(_ text: String, line: Int) {
        Array(text.utf8).withUnsafeBytes { pipeline.take(Record(.text($0), source: .stdin(line: line), trust: .operatorOwn)) }
    }

    /// What the run loop does when a plugin posted something: takes the
    /// verdicts and turns that ended on other threads.
    func takePosted() {
        pipeline.takeCompletionsIfAny()
    }

    /// The report's lines so far, after a flush.
    func reportLines() throws -> [String] {
        pipeline.flush()
        let text = try String(contentsOfFile: reportPath, encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// The C function `symbol` exported by the library `library`.
    func function<Function>(_ library: String, _ symbol: String, as type: Function.Type) throws -> Function {
        guard let handle = libraries[library], let address = dlsym(handle, symbol) else { throw StageError("no \(symbol) in \(library)") }
        return unsafeBitCast(address, to: type)
    }
}

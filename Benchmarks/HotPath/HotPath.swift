import Benchmark
import Foundation
import Logging
import PushHostCore
import PushHostIntake
import PushHostJSON
import PushHostMessage
import PushHostPipeline
import PushHostPlugins
import PushHostRecords

/// Micro-benchmarks of the hot path, one message at a time, on the
/// reference lines of `Benchmarks/generate`: time and mallocs per message
/// (a native C plugin against an ffi handler doing the same reads among
/// them); then `message_get` as a plugin calls it, time and mallocs per call.
///
///     PUSHHOST_BENCHMARKS=1 swift package benchmark --target HotPath
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(3)
    )
    let lines = ReferenceLines()

    Benchmark("JSON reader: validate and index one message") { benchmark in
        var reader = JSONReader()
        for index in benchmark.scaledIterations {
            let document = lines.withLine(index) { try! reader.parse($0) }
            blackHole(document)
        }
    }

    let message = Message()
    let targetKey = Array(RunOptions().targetKey.utf8)
    Benchmark("Normalization: shape, fields and target of one parsed message") { benchmark in
        targetKey.withUnsafeBytes { key in
            for index in benchmark.scaledIterations {
                let document = lines.documents[index % lines.documents.count]
                message.load(document, members: RootMembers(document.root), source: .stdin(line: index), platform: nil, targetKey: key)
                message.reset()
            }
        }
    }

    let host = try! NoopPlugins.host()
    let intake = host.intake
    Benchmark("Dispatch: one message from its bytes to a data plugin and a background plugin") { benchmark in
        for index in benchmark.scaledIterations {
            lines.withLine(index) { intake.take(Record(.text($0), source: .stdin(line: index), trust: .operatorOwn)) }
        }
    }

    let intercepted = try! NoopPlugins.host(interceptor: true)
    let interceptedIntake = intercepted.intake
    Benchmark("Dispatch: the same, behind an empty interceptor (proceeds at once)") { benchmark in
        for index in benchmark.scaledIterations {
            lines.withLine(index) { interceptedIntake.take(Record(.text($0), source: .stdin(line: index), trust: .operatorOwn)) }
        }
    }

    // What an ffi call costs per message against a native plugin: the same
    // C work (the four fields a typical plugin reads, their lengths added
    // up), as the data plugin of fields.c and as the plain C function of
    // legacy.c bound by legacy.ffi.json, each beside the no-op background
    // plugin. Measured in the same run, their ratio is the price of the ffi
    // handler; the first Dispatch row (a no-op data plugin) is the floor of
    // both. Both are checked first to read every line, and the same bytes.
    // Times drift between runs here: `Benchmarks/throughput --callgrind`
    // counts the instructions of the same pair per message, end to end.
    FieldsPlugins.check(lines)
    let native = try! FieldsPlugins.host(.native)
    let nativeIntake = native.intake
    Benchmark("Dispatch: a native C plugin reading four fields") { benchmark in
        withExtendedLifetime(native) {
            for index in benchmark.scaledIterations {
                lines.withLine(index) { nativeIntake.take(Record(.text($0), source: .stdin(line: index), trust: .operatorOwn)) }
            }
        }
    }

    let ffi = try! FieldsPlugins.host(.ffi)
    let ffiIntake = ffi.intake
    Benchmark("Dispatch: the same four fields through an ffi handler") { benchmark in
        withExtendedLifetime(ffi) {
            for index in benchmark.scaledIterations {
                lines.withLine(index) { ffiIntake.take(Record(.text($0), source: .stdin(line: index), trust: .operatorOwn)) }
            }
        }
    }

    // One message per run of the closure, and 1,000 calls on it: the strings
    // the message hands out pile up until it ends, after the measurement.
    let probe = try! Probe()
    for (what, path) in [("a top-level key", "priority"), ("a nested key", "data.title"),
                         ("a value with escapes", "data.body"), ("a missing key", "data.absent")] {
        Benchmark("message_get: \(what) (\(path))") { benchmark in
            path.withCString { path in
                probe.during {
                    benchmark.startMeasurement()
                    for _ in benchmark.scaledIterations {
                        blackHole(probe.get(path))
                    }
                    benchmark.stopMeasurement()
                }
            }
        }
    }
}

/// The first 10,000 reference lines, and each of them parsed once, for
/// the benchmarks that start after parsing.
final class ReferenceLines: @unchecked Sendable {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    let bytes: UnsafeMutableRawBufferPointer
    let ranges: [Range<Int>]
    let documents: [JSONDocument]
    private let tape: UnsafeMutablePointer<JSONToken>

    init() {
        let count = 10_000
        let path = "\(Self.root)/.build/bench/gcm-\(count).ndjson"
        if !FileManager.default.fileExists(atPath: path) {
            run("\(Self.root)/Benchmarks/generate", [String(count)])
        }
        let data = FileManager.default.contents(atPath: path)!
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 16)
        data.copyBytes(to: bytes)
        self.bytes = bytes
        var ranges: [Range<Int>] = []
        var start = 0
        for (offset, byte) in data.enumerated() where byte == UInt8(ascii: "\n") {
            ranges.append(start..<offset)
            start = offset + 1
        }
        self.ranges = ranges
        let tape = UnsafeMutablePointer<JSONToken>.allocate(capacity: data.count)
        self.tape = tape
        let reader = JSONReader()
        var used = 0
        documents = ranges.map { range in
            let document = try! reader.parse(UnsafeRawBufferPointer(rebasing: bytes[range]), into: tape + used)
            used += range.count
            return document
        }
    }

    /// Calls `body` with the bytes of line `index` (modulo the count).
    func withLine<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: bytes[ranges[index % ranges.count]]))
    }
}

/// A host with the no-op C plugins of `Benchmarks/noop.c`: a data plugin
/// that gives the verdict continue and a background plugin, no report;
/// with `interceptor`, behind an interceptor that proceeds at once.
enum NoopPlugins {
    static func host(interceptor: Bool = false) throws -> PushHostCore.Host {
        let roles = (interceptor ? [("interceptor", "INTERCEPTOR")] : []) + [("data", "DATA"), ("background", "BACKGROUND")]
        return try BenchmarkPlugins.host(roles.map { name, role in
            BenchmarkPlugins.compile("noop.c", as: "noop-\(name)", flags: ["-DROLE_\(role)", "-DNAME=\"noop-\(name)\""])
        })
    }
}

/// The two hosts that put a price on an ffi call per message: the same C
/// work, the four fields a typical plugin reads (its target, data.title,
/// data.body and priority) with their lengths added up, done
/// - natively, by the data plugin of `Benchmarks/fields.c`, which asks for
///   each field through the host table (message_target, message_get);
/// - through an ffi handler, by `legacy_fields` of `Benchmarks/legacy.c`, a
///   plain C library without pushhost.h, bound as the data handler by the
///   manifest `Benchmarks/legacy.ffi.json`: the host fills its four
///   `const char *` arguments from those paths and calls it with ffi_call;
/// each beside the no-op background plugin of `Benchmarks/noop.c`, no report.
enum FieldsPlugins {
    enum Kind { case native, ffi }

    /// Where the data plugin of each kind writes "messages N bytes B" at destroy.
    static func out(_ kind: Kind) -> String { "\(BenchmarkPlugins.folder)/\(kind).out" }

    /// Built once: the hosts of a kind (the check's, the benchmark's) load the same files.
    static let background = BenchmarkPlugins.compile(
        "noop.c", as: "noop-fields-background", flags: ["-DROLE_BACKGROUND", "-DNAME=\"noop-background\""])
    static let fields = BenchmarkPlugins.compile("fields.c", as: "fields", flags: [])
    static let manifest = makeManifest()

    static func host(_ kind: Kind) throws -> PushHostCore.Host {
        switch kind {
        case .native:
            try BenchmarkPlugins.host(
                [fields, background], overrides: [try! SettingOverride(parsing: "fields.out=\(out(.native))")])
        case .ffi:
            try BenchmarkPlugins.host([background, manifest])
        }
    }

    /// `Benchmarks/legacy.ffi.json` beside `liblegacy.so` (built as a plain
    /// library: every function visible), with the `out` of `.ffi` as the
    /// argument of legacy_open; returns the manifest's path. The hosts of
    /// `.ffi` share the library, and its counts: legacy_open starts them again.
    private static func makeManifest() -> String {
        _ = BenchmarkPlugins.compile("legacy.c", as: "liblegacy", flags: ["-fvisibility=default"])
        let template = FileManager.default.contents(atPath: "\(ReferenceLines.root)/Benchmarks/legacy.ffi.json")!
        var content = try! JSONSerialization.jsonObject(with: template) as! [String: Any]
        var initializer = content["init"] as! [String: Any]
        initializer["args"] = [["value": out(.ffi)]]
        content["init"] = initializer
        let path = "\(BenchmarkPlugins.folder)/legacy.ffi.json"
        precondition(FileManager.default.createFile(atPath: path, contents: try! JSONSerialization.data(withJSONObject: content)))
        return path
    }

    /// Sends every reference line through a host of each kind, then destroys
    /// its plugins: each data plugin must have seen every line, and both
    /// read the same bytes, else the benchmarks stop (an ffi handler that is
    /// not called, say for an argument the host could not fill, would
    /// otherwise look cheap).
    static func check(_ lines: ReferenceLines) {
        var seen: [String] = []
        for kind in [Kind.native, .ffi] {
            let host = try! host(kind)
            let intake = host.intake
            for index in lines.ranges.indices {
                lines.withLine(index) { intake.take(Record(.text($0), source: .stdin(line: index), trust: .operatorOwn)) }
            }
            precondition(host.failedCount == 0, "\(kind): \(host.failedCount) messages failed")
            host.shutdown()
            seen.append(try! String(contentsOfFile: out(kind), encoding: .utf8))
        }
        precondition(
            seen[0] == seen[1] && seen[0].hasPrefix("messages \(lines.ranges.count) bytes "),
            "the native and the ffi fields plugins did not read every line alike: \(seen)")
    }
}

/// A host with the data plugin of `Benchmarks/probe.c` alone, which calls
/// back into the benchmark from its `on_data`, so that the benchmark calls
/// the host accessors through the plugin's own host table, as a plugin does.
final class Probe: @unchecked Sendable {
    typealias Body = @convention(c) (UnsafeMutableRawPointer?) -> Void
    typealias SetBody = @convention(c) (Body?, UnsafeMutableRawPointer?) -> Void
    typealias Get = @convention(c) (UnsafePointer<CChar>) -> UnsafePointer<CChar>?

    /// The message `during` hands the probe: the reference shape, with
    /// escapes (a quote, a newline, a \u escape) in `data.body`.
    static let record = Array(#"""
        {"data":{"title":"printer jammed","body":"tray 2 says \"paper jam\"\nopen door B \u2014 then retry","rx_gcm_key_target":"issues","id":"7"},"to":"device-00c0ffee","priority":"high"}
        """#.utf8)

    /// `message_get(m, path)` for the message `during` is handling.
    let get: Get
    private let set: SetBody
    private let intake: any Intake
    /// Kept: the host owns what `intake` dispatches to.
    private let host: PushHostCore.Host

    init() throws {
        let path = BenchmarkPlugins.compile("probe.c", as: "probe", flags: [])
        host = try BenchmarkPlugins.host([path])
        intake = host.intake
        // The library the host loaded: dlopen finds it by its path.
        let library = dlopen(path, RTLD_NOW | RTLD_NOLOAD)
        set = unsafeBitCast(dlsym(library, "probe_set")!, to: SetBody.self)
        get = unsafeBitCast(dlsym(library, "probe_get")!, to: Get.self)
    }

    /// Calls `body` from the probe's `on_data`, during the data stage of one
    /// message made of `record`.
    func during(_ body: () -> Void) {
        withoutActuallyEscaping(body) { body in
            var body = body
            withUnsafeMutablePointer(to: &body) { pointer in
                set({ $0!.assumingMemoryBound(to: (() -> Void).self).pointee() }, pointer)
                Self.record.withUnsafeBytes { intake.take(Record(.text($0), source: .stdin(line: 1), trust: .operatorOwn)) }
                set(nil, nil)
            }
        }
    }
}

/// Builds benchmark plugins from `Benchmarks/`, and hosts them.
enum BenchmarkPlugins {
    static let folder = NSTemporaryDirectory() + "pushhost-hotpath-\(getpid())"

    /// Compiles `Benchmarks/<source>` with `flags` into `<name>.so`; returns its path.
    static func compile(_ source: String, as name: String, flags: [String]) -> String {
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = "\(folder)/\(name).so"
        run("/usr/bin/cc", ["-std=c11", "-O2", "-shared", "-fPIC", "-fvisibility=hidden",
                            "-I", "\(ReferenceLines.root)/include"] + flags + ["\(ReferenceLines.root)/Benchmarks/\(source)", "-o", path])
        return path
    }

    /// A host with the plugins at `paths` (`.so` files or `.ffi.json`
    /// manifests), `overrides` on their settings, no report.
    static func host(_ paths: [String], overrides: [SettingOverride] = []) throws -> PushHostCore.Host {
        let logger = Logger(label: "pushhost")
        let tokens = try TokenStore(directory: folder + "/state", logger: logger)
        return try PushHostCore.Host(
            catalog: PluginCatalog(paths: paths), spool: nil, overrides: overrides, skipBadPlugins: false, tokens: tokens, options: RunOptions(), logger: logger)
    }
}

/// Runs `program` and waits for it; a failure stops the benchmarks.
func run(_ program: String, _ arguments: [String]) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    try! process.run()
    process.waitUntilExit()
    precondition(process.terminationStatus == 0, "\(program) failed")
}

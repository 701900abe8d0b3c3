import Benchmark
import Foundation
import Logging
import PushHostCore

/// Micro-benchmarks of the hot path, one message at a time, on the
/// reference lines of `Benchmarks/generate`: time and mallocs per message.
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
            lines.withLine(index) { intake.take(Record(.text($0), source: .stdin(line: index))) }
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
/// that gives the verdict continue and a background plugin, no report.
enum NoopPlugins {
    static func host() throws -> Host {
        let folder = NSTemporaryDirectory() + "pushhost-hotpath-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let paths = [("data", "DATA"), ("background", "BACKGROUND")].map { name, role in
            let path = "\(folder)/noop-\(name).so"
            run("/usr/bin/cc", ["-std=c11", "-O2", "-shared", "-fPIC", "-fvisibility=hidden",
                                "-I", "\(ReferenceLines.root)/include", "-DROLE_\(role)", "-DNAME=\"noop-\(name)\"",
                                "\(ReferenceLines.root)/Benchmarks/noop.c", "-o", path])
            return path
        }
        let tokens = try TokenStore(directory: folder + "/state")
        let logger = Logger(label: "pushhost")
        return try Host(
            catalog: PluginCatalog(paths: paths), spool: nil, overrides: [], skipBadPlugins: false, tokens: tokens, options: RunOptions(), logger: logger)
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

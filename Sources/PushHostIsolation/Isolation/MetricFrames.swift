import PushHostSystem
import PushHostPlugins

/// How an isolated plugin's metrics cross from its worker to the host, on
/// the intake channel:
///
/// - ``WorkerFrame/FrameKind/metric``: one series, as its plugin declared
///   it. The call is its number, the number its kind, the handler byte how
///   many label fields there are; the fields: its name (as the plugin gave
///   it), its help, its labels (names and values, alternating), and its
///   buckets (little-endian doubles, none but a histogram's).
/// - ``WorkerFrame/FrameKind/metricValues``: a field a series, each
///   `[u64 number][f64 ...]`: the value a counter or a gauge reached; a
///   histogram's counts per bucket (the last above every bound) and its sum.
///
/// Values are what the series reached since the worker started, not what
/// they gained, so that a lost frame loses nothing; the host takes the
/// difference.
enum MetricFrames {
    /// The most label fields a declaration may carry (more breaks a rule anyway).
    static let maxLabelFields = 2 * PluginMetricDeclaration.maxLabels

    /// Appends the declaration of `series`.
    static func appendDeclaration(of series: PluginSeries, to buffer: inout ByteBuffer) {
        let declaration = series.declaration
        let labels = zip(declaration.labelNames, declaration.labelValues).flatMap { [$0, $1] }
        WorkerFrame.append(
            .metric, handler: UInt8(labels.count), call: series.id, number: declaration.kind.rawValue, to: &buffer
        ) { buffer in
            WorkerFrame.appendField(declaration.name, to: &buffer)
            WorkerFrame.appendField(declaration.help, to: &buffer)
            for label in labels { WorkerFrame.appendField(label, to: &buffer) }
            let bounds = declaration.buckets.map { $0.bitPattern.littleEndian }
            bounds.withUnsafeBytes { WorkerFrame.appendField($0, to: &buffer) }
        }
    }

    /// A declaration as a frame carries it, read with its bounds checked;
    /// nil when the frame is malformed (what it declares is checked later).
    static func declaration(in frame: WorkerFrame.Frame) -> (name: String, help: String, labels: [String], buckets: [Double])? {
        guard Int(frame.handler) <= maxLabelFields else { return nil }
        var fields = frame.fields
        var texts: [String] = []
        for _ in 0..<(2 + Int(frame.handler)) {
            guard let field = fields.next(), let field else { return nil }
            texts.append(String(decoding: field, as: UTF8.self))
        }
        guard let bytes = fields.next(), let bytes, bytes.count % 8 == 0, bytes.count <= 8 * PluginMetricDeclaration.maxBuckets,
              fields.next() == nil
        else { return nil }
        let buckets = stride(from: 0, to: bytes.count, by: 8).map {
            Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: $0, as: UInt64.self)))
        }
        return (texts[0], texts[1], Array(texts[2...]), buckets)
    }

    /// Appends what each of `series` reached.
    static func appendValues(_ series: [(number: UInt64, values: [Double])], to buffer: inout ByteBuffer) {
        WorkerFrame.append(.metricValues, to: &buffer) { buffer in
            for (number, values) in series {
                let words = [number.littleEndian] + values.map { $0.bitPattern.littleEndian }
                words.withUnsafeBytes { WorkerFrame.appendField($0, to: &buffer) }
            }
        }
    }

    /// The values a frame carries, by series; nil when it is malformed.
    static func values(in frame: WorkerFrame.Frame) -> [(number: UInt64, values: [Double])]? {
        var fields = frame.fields
        var found: [(UInt64, [Double])] = []
        while fields.offset < frame.payload.count {
            guard let field = fields.next(), let field, field.count >= 16, field.count % 8 == 0,
                  field.count <= 8 * (PluginMetricDeclaration.maxBuckets + 3)
            else { return nil }
            let words = stride(from: 0, to: field.count, by: 8).map { UInt64(littleEndian: field.loadUnaligned(fromByteOffset: $0, as: UInt64.self)) }
            found.append((words[0], words.dropFirst().map { Double(bitPattern: $0) }))
        }
        return found
    }
}

import Foundation
import Testing

/// The folders of `Sources/PushHostCore` follow the path a message travels,
/// and no file uses a type of a folder downstream of its own.
@Suite struct LayoutTests {
    /// Upstream first: the stages in the order a message travels, then the
    /// run that joins them. (The layers below them are targets of their own.)
    static let order = [
        "Plugins",
        "Flight", "Interceptors", "DataStage", "AppState", "UIRoute", "Report", "Actions", "Metrics", "Run",
        // Beside the path: what `pushhost new plugin` writes for plugin authors.
        "Template",
    ]

    static let library = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/PushHostCore")

    /// The Swift files under `folder`, with their text less comments and string literals.
    static func files(in folder: String) throws -> [(path: String, code: String)] {
        let root = library.appendingPathComponent(folder)
        let enumerator = try #require(FileManager.default.enumerator(atPath: root.path))
        return try enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { name in
            let text = try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
            let code = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                var line = String(line)
                if let comment = line.range(of: "//") { line = String(line[..<comment.lowerBound]) }
                return line.replacingOccurrences(of: #""([^"\\]|\\.)*""#, with: "\"\"", options: .regularExpression)
            }.joined(separator: "\n")
            return (folder + "/" + name, code)
        }
    }

    /// The types a file declares.
    static func declared(in code: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: #"\b(?:class|struct|enum|protocol|typealias|actor)\s+([A-Z]\w*)"#)
        let range = NSRange(code.startIndex..., in: code)
        return Set(pattern.matches(in: code, range: range).map { String(code[Range($0.range(at: 1), in: code)!]) })
    }

    @Test func everyFolderIsInTheOrder() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.library.path).filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: Self.library.appendingPathComponent($0).path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
        #expect(Set(folders) == Set(Self.order))
        let loose = try FileManager.default.contentsOfDirectory(atPath: Self.library.path).filter { $0.hasSuffix(".swift") }
        #expect(loose.isEmpty, "files at the library root: \(loose)")
    }

    @Test(arguments: order.indices)
    func usesNothingDownstream(_ position: Int) throws {
        let files = try Self.files(in: Self.order[position])
        var downstream: [String: String] = [:]
        for folder in Self.order[(position + 1)...] {
            for file in try Self.files(in: folder) {
                for type in Self.declared(in: file.code) { downstream[type] = folder }
            }
        }
        for file in files {
            let words = Set(file.code.split { !$0.isLetter && !$0.isNumber && $0 != "_" }.map(String.init))
            let used = words.filter { downstream[$0] != nil }.sorted()
            #expect(used.isEmpty, "\(file.path) uses \(used.map { "\($0) (\(downstream[$0]!))" }.joined(separator: ", "))")
        }
    }
}

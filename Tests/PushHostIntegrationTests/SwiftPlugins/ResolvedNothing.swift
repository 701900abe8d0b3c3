import Foundation
import Testing

/// Expects that the package at `folder`, once built, resolved no package
/// but the ones it names by path (the SDK): nothing checked out, nothing
/// pinned in Package.resolved.
func expectResolvedNothing(_ folder: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let checkouts = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/.build/checkouts")) ?? []
    #expect(checkouts.isEmpty, "checked out: \(checkouts)", sourceLocation: sourceLocation)
    let resolved = (try? String(contentsOfFile: folder + "/Package.resolved", encoding: .utf8)) ?? ""
    #expect(!resolved.contains("\"identity\""), "pinned: \(resolved)", sourceLocation: sourceLocation)
}

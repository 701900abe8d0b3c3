import Foundation

/// Where the package and its built products are.
enum Paths {
    /// The package root (the folder holding Package.swift).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `include/`, holding pushhost.h.
    static let include = packageRoot.appendingPathComponent("include")

    /// `Tests/Fixtures/`, files the tests read but no target builds (such as
    /// `pushhost-1.0/pushhost.h`, the header of ABI 1.0).
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")

    /// `Tests/Fixtures/plugins/`, the C sources of the plugins tests build.
    static let fixturePlugins = fixtures.appendingPathComponent("plugins")

    /// The folder of the running test bundle, where `swift build` put the
    /// `pushhost` binary and the sample plugins.
    static let products: URL = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // swiftpm-testing-helper runs from the toolchain; the bundle is then an argument.
        if !FileManager.default.fileExists(atPath: folder.appendingPathComponent("pushhost").path),
           let bundle = CommandLine.arguments.first(where: { $0.hasSuffix(".xctest") }) {
            folder = URL(fileURLWithPath: bundle).deletingLastPathComponent()
        }
        return folder
    }()

    static let pushhost = products.appendingPathComponent("pushhost").path

    /// A sample plugin built by `swift build`, e.g. `sample("cache")`.
    static func sample(_ name: String) -> String {
        products.appendingPathComponent("lib\(name).so").path
    }
}

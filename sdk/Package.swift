// swift-tools-version: 6.1
// The pushhost Swift SDK: the PushHostPlugin library a Swift plugin is built
// on, and CPushHost, the plugin header <pushhost.h> as a Clang module. A
// package of its own with no dependencies, so that a plugin's build resolves
// nothing else: a plugin project depends on this folder by path (in a clone,
// or as `make install` installs it in DATADIR/pushhost/PushHostPlugin), and
// the host's own package depends on it the same way.
import PackageDescription

let package = Package(
    name: "PushHostPlugin",
    products: [
        .library(name: "PushHostPlugin", targets: ["PushHostPlugin"]),
        // The header alone, for the host and the C sample plugins.
        .library(name: "CPushHost", targets: ["CPushHost"]),
    ],
    targets: [
        // include/ is the repository's include/ (a link), installed beside this file.
        .systemLibrary(name: "CPushHost", path: "include"),
        .target(name: "PushHostPlugin", dependencies: ["CPushHost"]),
    ]
)

// The SDK's documentation (swift-docc-plugin), only when asked for, so that
// no plugin's build fetches it; docs/build-sdk-docs.sh runs
//     PUSHHOST_DOCS=1 swift package --package-path sdk --scratch-path .build/docs generate-documentation --target PushHostPlugin --warnings-as-errors
if Context.environment["PUSHHOST_DOCS"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}

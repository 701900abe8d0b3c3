// swift-tools-version: 6.1
// The pushhost Swift SDK as `make install` installs it
// (DATADIR/pushhost/PushHostPlugin): the PushHostPlugin library and the
// plugin header it reads, for Swift plugins built against the installed
// pushhost. `pushhost new plugin NAME --language swift` writes a package
// that depends on this one.
import PackageDescription

let package = Package(
    name: "PushHostPlugin",
    products: [
        .library(name: "PushHostPlugin", targets: ["PushHostPlugin"]),
    ],
    targets: [
        // <pushhost.h>, as a Clang module.
        .systemLibrary(name: "CPushHost", path: "Sources/CPushHost"),
        .target(name: "PushHostPlugin", dependencies: ["CPushHost"]),
    ]
)

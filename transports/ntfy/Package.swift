// swift-tools-version: 6.1
// The ntfy source plugin: follows one ntfy topic's JSON stream over HTTP and
// hands each line to the host. A package of its own, so that the host's build
// never builds an HTTP client. `swift build` makes .build/debug/libntfy.so.
import PackageDescription

let package = Package(
    name: "pushhost-ntfy",
    products: [
        .library(name: "ntfy", type: .dynamic, targets: ["Ntfy"]),
    ],
    dependencies: [
        .package(path: "../../sdk"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        .target(
            name: "Ntfy",
            dependencies: [
                .product(name: "PushHostPlugin", package: "sdk"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(
            name: "NtfyTests",
            dependencies: ["Ntfy"]
        ),
    ]
)

// swift-tools-version: 6.1
import PackageDescription

// The Swift plugins of Benchmarks/throughput, built the way a plugin author
// builds theirs: a package of its own that depends on pushhost's
// PushHostPlugin product by path, one dynamic library per plugin.
//     swift build -c release --package-path Benchmarks/FieldsPlugin
let package = Package(
    name: "fields-plugin",
    products: [
        .library(name: "fields-swift", type: .dynamic, targets: ["FieldsSwift"]),
        .library(name: "fields-swift-data", type: .dynamic, targets: ["FieldsSwiftData"]),
    ],
    dependencies: [
        .package(path: "../../sdk"),
    ],
    targets: [
        // What both plugins read of a message, and the sum they keep.
        .target(name: "FieldLengths", dependencies: [.product(name: "PushHostPlugin", package: "sdk")]),
        .target(name: "FieldsSwift", dependencies: ["FieldLengths", .product(name: "PushHostPlugin", package: "sdk")]),
        .target(name: "FieldsSwiftData", dependencies: ["FieldLengths", .product(name: "PushHostPlugin", package: "sdk")]),
    ]
)

// swift-tools-version: 6.1
import PackageDescription

/// A sample C plugin: one folder under `plugins/`, built as a dynamic library
/// `lib<name>.so`, including `<pushhost.h>` from the top-level `include/`.
func samplePlugin(_ name: String, target: String) -> [Target] {
    [
        .target(
            name: target,
            dependencies: [.product(name: "CPushHost", package: "sdk")],
            path: "plugins/\(name)",
            publicHeadersPath: ".",
            cSettings: [.headerSearchPath("../../include")]
        )
    ]
}

let samples: [(name: String, target: String)] = [
    ("cache", "PluginCache"),
    ("notify", "PluginNotify"),
    ("issues", "PluginIssues"),
    ("supplies", "PluginSupplies"),
    ("token-log", "PluginTokenLog"),
    ("fifo-source", "PluginFifoSource"),
    ("dedupe", "PluginDedupe"),
    ("enrich", "PluginEnrich"),
]

/// A sample Swift plugin: one folder under `plugins/`, built as a dynamic
/// library `lib<name>.so` on top of `PushHostPlugin`, the SDK of `sdk/`.
let swiftSamples: [(name: String, target: String)] = [
    ("inbox", "PluginInbox"),
    ("orders", "PluginOrders"),
    ("debounce", "PluginDebounce"),
]

/// Every target of the host's library, top first: what the command line and
/// the unit tests may use.
let everyLibrary: [Target.Dependency] = [
    "PushHostCore", "PushHostIsolation", "PushHostPipeline", "PushHostPort", "PushHostPlugins", "PushHostMessage",
    "PushHostIntake", "PushHostRecords", "PushHostJSON", "PushHostSystem", "PushHostCheck",
]

/// A stored property of a class that another target reads is checked for
/// exclusive access at run time on every access (about 150 instructions),
/// whatever `@exclusivity(unchecked)` its own target says. The hot path
/// crosses targets (a record, its message, a handler call, its report line):
/// a release build checks exclusive access when it compiles, as a debug
/// build (and every test) still does at run time too; and it lets the
/// compiler take small functions across targets (cross-module
/// optimization). A `package` function a stage calls per message is
/// inlined there only when it is `@inlinable` and its type and what it
/// reads are `@usableFromInline` (else it stays a call, silently).
let acrossTargets: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked", "-cross-module-optimization"], .when(configuration: .release))]

/// The plugins' target and everything below it: what the port, the stages
/// and isolation all stand on.
let thePlugins: [Target.Dependency] = [
    "PushHostPlugins", "PushHostMessage", "PushHostIntake", "PushHostRecords", "PushHostJSON", "PushHostSystem",
]

let package = Package(
    name: "pushhost",
    products: [
        .executable(name: "pushhost", targets: ["pushhost"]),
    ] + (samples + swiftSamples).map { .library(name: $0.name, type: .dynamic, targets: [$0.target]) },
    dependencies: [
        // The Swift SDK for plugins and the plugin header, a package of its own
        // that a plugin project depends on without the host's packages.
        .package(path: "sdk"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // libffi, which calls the plain C functions of ffi handlers (docs/plugins.md).
        .systemLibrary(name: "CFFI", pkgConfig: "libffi", providers: [.apt(["libffi-dev"])]),
        // The JSON reader's 16-byte vector step (SSE2 intrinsics).
        .target(name: "CJSONScan"),
        // A worker's walls: Landlock and prctl, and seccomp through libseccomp opened at run time.
        .target(name: "CSandbox"),
        // --metrics: the time-stamp counter that handlers' durations are read from.
        .target(name: "CTicks"),
        // The lower layers, one target each, so that what a layer may use is
        // written here and a wrong import fails the build. Each target's first
        // file (Sources/<Target>/<Target>.swift) says what it holds.
        .target(
            name: "PushHostSystem",
            dependencies: [
                "CTicks",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            swiftSettings: acrossTargets
        ),
        .target(
            name: "PushHostJSON",
            dependencies: ["PushHostSystem", "CJSONScan"],
            swiftSettings: acrossTargets
        ),
        .target(
            name: "PushHostRecords",
            dependencies: [
                "PushHostJSON",
                "PushHostSystem",
                .product(name: "CPushHost", package: "sdk"),
                "CTicks",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            swiftSettings: acrossTargets
        ),
        .target(
            name: "PushHostIntake",
            dependencies: [
                "PushHostRecords",
                "PushHostJSON",
                "PushHostSystem",
                .product(name: "CPushHost", package: "sdk"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: acrossTargets
        ),
        .target(
            name: "PushHostMessage",
            dependencies: ["PushHostRecords", "PushHostJSON", "PushHostSystem"],
            swiftSettings: acrossTargets
        ),
        .target(
            name: "PushHostCheck",
            dependencies: ["PushHostJSON", "PushHostSystem"],
            swiftSettings: acrossTargets
        ),
        // The plugins: the ABI, loading, descriptors, settings, the host's
        // function table; and the record a handler call is about.
        .target(
            name: "PushHostPlugins",
            dependencies: [
                "PushHostMessage",
                "PushHostIntake",
                "PushHostRecords",
                "PushHostJSON",
                "PushHostSystem",
                .product(name: "CPushHost", package: "sdk"),
                "CFFI",
                // The bus broker's descriptor passing (ph.bus/1).
                "CSandbox",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            swiftSettings: acrossTargets
        ),
        // The one way a stage calls a handler, wherever its plugin runs.
        .target(
            name: "PushHostPort",
            dependencies: thePlugins + [
                .product(name: "CPushHost", package: "sdk"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: acrossTargets
        ),
        // The stages a record goes through, in order, and its report line:
        // they know the port, and nothing of where a plugin runs.
        .target(
            name: "PushHostPipeline",
            dependencies: ["PushHostPort"] + thePlugins + [
                .product(name: "CPushHost", package: "sdk"),
                "CTicks",
                .product(name: "Logging", package: "swift-log"),
                // Deque: the queues of records.
                .product(name: "DequeModule", package: "swift-collections"),
                // --metrics: the registry and its text format, and the handler durations' cells.
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            swiftSettings: acrossTargets
        ),
        // Plugins in worker processes behind walls: the port's other implementation.
        .target(
            name: "PushHostIsolation",
            dependencies: ["PushHostPort"] + thePlugins + [
                .product(name: "CPushHost", package: "sdk"),
                "CSandbox",
                .product(name: "Logging", package: "swift-log"),
                // Deque: the calls under way in a worker.
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            swiftSettings: acrossTargets
        ),
        // The host: a pipeline wired to where each plugin runs, its loop, its
        // watchdog; and what `pushhost new plugin` writes.
        .target(
            name: "PushHostCore",
            dependencies: [
                "PushHostIsolation",
                "PushHostPipeline",
                "PushHostPort",
                "PushHostPlugins",
                "PushHostMessage",
                "PushHostIntake",
                "PushHostRecords",
                "PushHostJSON",
                "PushHostSystem",
                "PushHostCheck",
                .product(name: "CPushHost", package: "sdk"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            swiftSettings: acrossTargets
        ),
        // --metrics: the HTTP endpoint (/metrics, /healthz) on an event loop
        // of its own; SwiftNIO stays out of the core.
        .target(
            name: "PushHostMetricsServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "pushhost",
            dependencies: everyLibrary + [
                "PushHostMetricsServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "PushHostCoreTests",
            dependencies: everyLibrary + [
                .product(name: "CPushHost", package: "sdk"),
                "CTicks",
            ]
        ),
        .testTarget(
            name: "PushHostIntegrationTests",
            dependencies: ["PushHostCore", "PushHostPipeline", "PushHostPlugins", "PushHostMessage", "PushHostRecords", "PushHostSystem"]
        ),
    ] + samples.flatMap { samplePlugin($0.name, target: $0.target) }
      + swiftSamples.map { .target(name: $0.target, dependencies: [.product(name: "PushHostPlugin", package: "sdk")], path: "plugins/\($0.name)") }
)

// Micro-benchmarks (ordo-one/benchmark), only when asked for, so that
// ordinary builds and CI do not fetch and build it:
//     PUSHHOST_BENCHMARKS=1 swift package benchmark --target HotPath
if Context.environment["PUSHHOST_BENCHMARKS"] == "1" {
    package.dependencies.append(
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]))
    package.targets.append(
        .executableTarget(
            name: "HotPath",
            dependencies: everyLibrary + [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/HotPath",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ))
}

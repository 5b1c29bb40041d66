// swift-tools-version:6.1
import PackageDescription

let moduleSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    // In release, a concrete generic type's metadata is reached through its accessor rather than
    // by demangling its name at run time: the first demangling of each such type looks its
    // conformances up by scanning every conformance record in the binary (about 400,000
    // instructions a scan), and startup would pay for several (Benchmarks/README.md).
    .unsafeFlags(
        ["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"],
        .when(configuration: .release)
    ),
]

let package = Package(
    name: "superwall-bridge",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "superwall-bridge", targets: ["superwall-bridge"]),
        .library(name: "JSONRPC", targets: ["JSONRPC"]),
        .library(name: "Rules", targets: ["Rules"]),
        .library(name: "SuperwallCore", targets: ["SuperwallCore"]),
        .library(name: "BridgeServer", targets: ["BridgeServer"]),
        // The bridge in-process, behind the C interface of embedding/include/superwall_bridge.h.
        .library(name: "superwall_bridge", type: .dynamic, targets: ["SuperwallBridgeEmbedding"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"])]
        ),
        // glibc's mallopt, for the executable's allocator settings.
        .systemLibrary(name: "CMalloc"),
        // sched_setattr, which glibc does not wrap, for the store's background worker; the
        // CPU affinity, which the bridge reads to say where that worker runs.
        .target(name: "CScheduling"),
        // memcpy into a file's shared mapping that turns SIGBUS into an error, for the journal.
        .target(name: "CGuardedCopy"),
        // What a forked child must not inherit: the data directories' locks, and the use of
        // bridges whose threads stayed in the parent.
        .target(name: "CForkGuard"),
        .target(name: "JSONText", swiftSettings: moduleSettings),
        // Timers and an executor that need no thread of Swift's cooperative pool.
        .target(
            name: "Executors",
            dependencies: [
                "CForkGuard",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: moduleSettings
        ),
        .target(
            name: "JSONRPC",
            dependencies: [
                "CJansson",
                "CScheduling",
                "Executors",
                "JSONText",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: moduleSettings
        ),
        .target(name: "Rules", swiftSettings: moduleSettings),
        .target(
            name: "SuperwallCore",
            dependencies: [
                "CForkGuard",
                "CGuardedCopy",
                "CScheduling",
                "Executors",
                "JSONText",
                "Rules",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: moduleSettings,
            // The toolchain's ICU, which Foundation uses, formats what Foundation on Linux
            // cannot (short durations); its symbols are `swift_`-prefixed.
            linkerSettings: [.linkedLibrary("_FoundationICU", .when(platforms: [.linux]))]
        ),
        // A local stand-in for the Superwall API, for tests and demos (`superwall-bridge fake-api`).
        .target(
            name: "FakeAPI",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: moduleSettings
        ),
        .target(
            name: "BridgeServer",
            dependencies: [
                "CScheduling",
                "Executors",
                "JSONRPC",
                "Rules",
                "SuperwallCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: moduleSettings
        ),
        // What linking static jansson into a shared library needs (see stdin.c).
        .target(name: "CEmbeddingShims"),
        .target(
            name: "SuperwallBridgeEmbedding",
            dependencies: [
                "BridgeCommandLine",
                "BridgeServer",
                "CEmbeddingShims",
                "CForkGuard",
                "JSONRPC",
                "SuperwallCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: moduleSettings,
            // Never unmapped by dlclose: threads of the runtime inside it (libdispatch's) may
            // still run its code when a host unloads it at exit, as LuaJIT does.
            linkerSettings: [.unsafeFlags(["-Xlinker", "-z", "-Xlinker", "nodelete"])]
        ),
        // The command line, for the executable and for the library's superwall_bridge_main.
        .target(
            name: "BridgeCommandLine",
            dependencies: [
                "BridgeServer",
                .target(name: "CMalloc", condition: .when(platforms: [.linux])),
                "FakeAPI",
                "JSONRPC",
                "Rules",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: moduleSettings
        ),
        .executableTarget(
            name: "superwall-bridge",
            dependencies: ["BridgeCommandLine"],
            swiftSettings: moduleSettings,
            // Not position-independent in release: the loader then has almost nothing to relocate at start.
            linkerSettings: [
                .unsafeFlags(["-Xclang-linker", "-no-pie"], .when(platforms: [.linux], configuration: .release))
            ]
        ),
        .executableTarget(
            name: "rules-benchmark",
            dependencies: ["Rules", "SuperwallCore"],
            path: "Benchmarks/RulesBenchmark",
            swiftSettings: moduleSettings
        ),
        .target(
            name: "TestSupport",
            dependencies: ["Executors", "JSONRPC", .product(name: "Logging", package: "swift-log")],
            path: "Tests/TestSupport",
            resources: [.copy("Fixtures")],
            swiftSettings: moduleSettings
        ),
        .testTarget(
            name: "JSONRPCTests",
            dependencies: [
                "JSONRPC", "TestSupport", .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            swiftSettings: moduleSettings
        ),
        .testTarget(
            name: "RulesTests",
            dependencies: ["Rules"],
            resources: [.copy("Fixtures")],
            swiftSettings: moduleSettings
        ),
        .testTarget(
            name: "SuperwallCoreTests",
            dependencies: [
                "FakeAPI", "SuperwallCore", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: moduleSettings
        ),
        .testTarget(name: "JSONTextTests", dependencies: ["JSONText", "TestSupport"], swiftSettings: moduleSettings),
        .testTarget(
            name: "BridgeServerTests",
            dependencies: ["BridgeServer", "JSONRPC", "TestSupport"],
            swiftSettings: moduleSettings
        ),
        .testTarget(
            name: "EmbeddingTests",
            dependencies: ["BridgeCommandLine", "BridgeServer", "SuperwallBridgeEmbedding", "TestSupport"],
            swiftSettings: moduleSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["BridgeCommandLine", "JSONRPC", "TestSupport"],
            swiftSettings: moduleSettings
        ),
    ]
)

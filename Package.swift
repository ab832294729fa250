// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "fxreplay",
    products: [
        .library(name: "ReplayKitless", targets: ["ReplayKitless"]),
        .executable(name: "fxreplay", targets: ["fxreplay"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        // The library's warnings, progress and FFmpeg's log go to the caller's logger, never to stderr.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `FilePath` in the library's public API (re-exported: `import ReplayKitless` names it).
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // `swift package generate-documentation` for the DocC catalogue.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libswresample-dev", "libavutil-dev"])]
        ),
        .systemLibrary(
            name: "CFreeType",
            pkgConfig: "freetype2",
            providers: [.apt(["libfreetype-dev"])]
        ),
        // Hot loops in C with SIMD chosen at run time (blur.c); no unsafeFlags, so the package stays usable as a dependency.
        .target(name: "CKernels"),
        .target(
            name: "ReplayKitless",
            dependencies: ["CFFmpeg", "CFreeType", "CKernels", .product(name: "Yams", package: "Yams"),
                           .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "SystemPackage", package: "swift-system")]
        ),
        // `fxreplay batch`: plans, runs and reports many renders as child processes of the CLI. Not part of
        // the library: a program using ReplayKitless runs its own jobs.
        .target(
            name: "FxreplayBatch",
            dependencies: ["ReplayKitless", .product(name: "Yams", package: "Yams"), .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "fxreplay",
            dependencies: [
                "ReplayKitless",
                "FxreplayBatch",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Throughput of the compositing kernels alone (benchmarks/background.sh); not a product.
        .executableTarget(name: "fxbench", dependencies: ["ReplayKitless"]),
        .target(name: "FxTestSupport", dependencies: ["ReplayKitless"], path: "Tests/Support"),
        .testTarget(name: "ReplayKitlessTests", dependencies: ["ReplayKitless", "FxreplayBatch", "FxTestSupport", .product(name: "Yams", package: "Yams"),
                                                          .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "fxreplayTests", dependencies: ["fxreplay", "ReplayKitless", "FxreplayBatch", "FxTestSupport"]),
    ]
)

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
                           .product(name: "ZIPFoundation", package: "ZIPFoundation")]
        ),
        .executableTarget(
            name: "fxreplay",
            dependencies: [
                "ReplayKitless",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Throughput of the compositing kernels alone (benchmarks/background.sh); not a product.
        .executableTarget(name: "fxbench", dependencies: ["ReplayKitless"]),
        .target(name: "FxTestSupport", dependencies: ["ReplayKitless"], path: "Tests/Support"),
        .testTarget(name: "ReplayKitlessTests", dependencies: ["ReplayKitless", "FxTestSupport", .product(name: "Yams", package: "Yams")]),
        .testTarget(name: "fxreplayTests", dependencies: ["fxreplay", "ReplayKitless", "FxTestSupport"]),
    ]
)

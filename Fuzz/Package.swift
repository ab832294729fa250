// swift-tools-version:6.0
// libFuzzer targets for fxreplay's parsers of outside input: a package of its own, so the root
// package never sees it. scripts/fuzz.sh builds and runs it; see README.md here.
import PackageDescription

/// One executable per parser; Sources/NAME/Entry.swift hands each input to the `FuzzTarget` of that name.
let fuzzTargets = [
    "FuzzPoseJSONL", "FuzzPoseCSV", "FuzzPose32", "FuzzPoseSEI", "FuzzAnnotationScene", "FuzzAnnotationCost", "FuzzOBJ", "FuzzPlacementTrack",
    "FuzzJobSpecYAML", "FuzzJobSpecJSON", "FuzzManifest", "FuzzFrameHashGolden", "FuzzBatchPlan",
    "FuzzEncoderOptions",
    "FuzzLayout",
]

let package = Package(
    name: "fxreplay-fuzz",
    // The library's own sources (Sources/ReplayKitless, FxreplayBatch and the C targets are symlinks to the root
    // package's), built inside this package: the harness reaches the parsers' `package` API, which
    // another package (a path dependency on the root) could not see.
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat"),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2"),
        .target(name: "CKernels"),
        .target(name: "ReplayKitless", dependencies: ["CFFmpeg", "CFreeType", "CKernels", .product(name: "Yams", package: "Yams"),
                                                      .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                                                      .product(name: "Logging", package: "swift-log"),
                                                      .product(name: "SystemPackage", package: "swift-system")],
                exclude: ["ReplayKitless.docc"]),
        // FuzzHarness.swift is a symlink to Tests/ReplayKitlessTests/FuzzHarness.swift, shared with the regression tests.
        .target(name: "FxreplayBatch", dependencies: ["ReplayKitless", .product(name: "Yams", package: "Yams"),
                                                      .product(name: "Logging", package: "swift-log")]),
        .target(name: "FuzzHarness", dependencies: ["ReplayKitless", "FxreplayBatch"]),
    ] + fuzzTargets.map { .executableTarget(name: $0, dependencies: ["FuzzHarness"]) }
)

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
    // `fxreplay` is a symlink to `..`: SwiftPM names a path dependency after its last path component,
    // and the checkout folder's name varies (and may even be "fuzz", this package's own name).
    dependencies: [.package(path: "fxreplay")],
    targets: [
        // FuzzHarness.swift is a symlink to Tests/ReplayKitlessTests/FuzzHarness.swift, shared with the regression tests.
        .target(name: "FuzzHarness", dependencies: [.product(name: "ReplayKitless", package: "fxreplay")]),
    ] + fuzzTargets.map { .executableTarget(name: $0, dependencies: ["FuzzHarness"]) }
)

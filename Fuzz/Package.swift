// swift-tools-version:6.0
// libFuzzer targets for fxreplay's parsers of outside input. A package of its own, so the root
// package never builds it; scripts/fuzz.sh builds and runs it (see README.md here).
import Foundation
import PackageDescription

/// The fxreplay package (this folder's parent). SwiftPM names a path dependency after its folder,
/// which depends on where the repository is checked out.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

/// One executable per parser; Sources/NAME/Entry.swift hands each input to `FuzzTarget` NAME.
let fuzzTargets = [
    "FuzzPoseJSONL", "FuzzPoseCSV", "FuzzPose32", "FuzzPoseSEI", "FuzzAnnotationScene", "FuzzOBJ", "FuzzPlacementTrack",
]

let package = Package(
    name: "fxreplay-fuzz",
    dependencies: [.package(path: "fxreplay")],
    targets: [
        // FuzzHarness.swift is a symlink to Tests/ReplayKitlessTests/FuzzHarness.swift, shared with the regression tests.
        .target(name: "FuzzHarness", dependencies: [.product(name: "ReplayKitless", package: "fxreplay")]),
    ] + fuzzTargets.map { .executableTarget(name: $0, dependencies: ["FuzzHarness"]) }
)

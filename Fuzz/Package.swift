// swift-tools-version:6.0
import Foundation
import PackageDescription

// Every folder of Targets/NAME is one fuzz target, the executable fuzz-NAME: its @main hands
// its test function to libFuzzer (`runFuzzer`). Fuzz/run builds them instrumented.
// Adding a folder adds a target; nothing here needs editing.
// A package of its own so that the fuzz targets never enter the normal `swift build`.
let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let names =
    ((try? FileManager.default.contentsOfDirectory(
        atPath: here.appendingPathComponent("Targets").path)) ?? [])
    .filter { !$0.hasPrefix(".") }.sorted()

let package = Package(
    name: "trove-fuzz",
    dependencies: [.package(name: "trove", path: "..")],
    targets: [
        .target(name: "FuzzDriver", path: "Support/FuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["FuzzDriver"], path: "Support/FuzzSupport"),
    ]
        + names.map { name in
            .executableTarget(
                name: "fuzz-\(name)",
                dependencies: [
                    "FuzzSupport",
                    .product(name: "TroveBase", package: "trove"),
                    .product(name: "TroveStore", package: "trove"),
                    .product(name: "TroveKit", package: "trove"),
                    .product(name: "TroveImaging", package: "trove"),
                ],
                path: "Targets/\(name)",
                // libFuzzer for the fuzz targets only; one option, as swiftc keeps the last.
                linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]
            )
        }
)

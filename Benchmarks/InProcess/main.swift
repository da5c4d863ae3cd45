// trove-bench: timings that only make sense inside one process, beside a brute-force
// peer computed in the same run.
//
//     trove-bench near WORKSPACE [QUERIES]
//
// Runs QUERIES circle queries (50 km, centres spread over the data's latitudes) through
// `NearbySearch`, then the same circles as a brute-force scan of every treasure with the
// same distance test, checks that both find the same keys, and prints the time a query
// for each.
//
//     trove-bench storage-upload FOLDER BUCKET PREFIX
//
// Uploads every file in FOLDER through the publish's Storage transport (PublishUpload.swift).
import Dispatch
import Foundation
import TroveBase
import TroveKit
import TroveStore

func elapsedSeconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func row(_ label: String, _ value: String) -> String {
    label.padding(toLength: 44, withPad: " ", startingAt: 0) + " " + value
}

func benchmarkNear(workspacePath: String, queries: Int) throws -> Int32 {
    let workspace = try Workspace(path: workspacePath)
    let circles = (1...queries).map { index -> GeoCircle in
        let latitude = Double((index * 37) % 120 - 55)
        let longitude = Double((index * 71) % 340 - 170)
        return GeoCircle(latitude: latitude, longitude: longitude, radius: 50_000)
    }
    // One untimed query warms the page cache and prepares nothing twice.
    _ = try NearbySearch.search(workspace, kind: .treasures, circle: circles[0])

    var indexed: [[String]] = []
    let indexedSeconds = try elapsedSeconds {
        for circle in circles {
            indexed.append(
                try NearbySearch.search(workspace, kind: .treasures, circle: circle).map(\.key))
        }
    }

    let everything = try NearbySearch.allTreasurePositions(workspace)
    var scanned: [[String]] = []
    let scanSeconds = elapsedSeconds {
        for circle in circles {
            scanned.append(
                everything.filter {
                    circle.contains(latitude: $0.latitude, longitude: $0.longitude)
                }.map(\.key).sorted())
        }
    }
    let mismatches = zip(indexed, scanned).filter { $0.0.sorted() != $0.1 }.count
    let found = indexed.reduce(0) { $0 + $1.count }
    let indexedMilliseconds = indexedSeconds * 1000 / Double(queries)
    let scanMilliseconds = scanSeconds * 1000 / Double(queries)
    print(
        row(
            "trove near, geohash ranges",
            String(
                format: "%8.3f ms a query (in process, %d queries, %d found)",
                indexedMilliseconds, queries, found)))
    print(
        row(
            "brute-force scan, same circles",
            String(format: "%8.3f ms a query (positions already in memory)", scanMilliseconds)))
    print(
        row("brute force / geohash ranges", String(format: "%8.1fx", scanSeconds / indexedSeconds)))
    if mismatches > 0 {
        print("MISMATCH: \(mismatches) of \(queries) queries found other treasures than the scan")
        return 1
    }
    print("same treasures found by both: yes")
    return 0
}

let arguments = CommandLine.arguments
do {
    if arguments.count >= 3, arguments[1] == "near" {
        exit(
            try benchmarkNear(
                workspacePath: arguments[2],
                queries: Int(arguments.dropFirst(3).first ?? "") ?? 200))
    }
    if arguments.count == 5, arguments[1] == "storage-upload" {
        exit(
            try benchmarkStorageUpload(
                folder: arguments[2], bucket: arguments[3], prefix: arguments[4]))
    }
    FileHandle.standardError.write(
        Data(
            ("usage: trove-bench near WORKSPACE [QUERIES]\n"
                + "       trove-bench storage-upload FOLDER BUCKET PREFIX\n").utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("trove-bench: \(error)\n".utf8))
    exit(1)
}

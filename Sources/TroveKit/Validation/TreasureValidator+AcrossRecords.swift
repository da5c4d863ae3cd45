import Foundation
import TroveBase

// What runs after the records' own checks: their images, decoded in batches on every
// core, near-duplicates and swapped coordinates.

extension TreasureValidator {
    /// Adds the checks across records to `findings`, after the records' own.
    mutating func finish() {
        checkImages()
        findCloseNeighbours()
        if bounds == nil { findSwappedOutliers() }
    }

    /// Decodes the batch's images on every core (each check is a decode at 1/8 scale, so
    /// this is most of a validation's time with artwork) and puts each one's findings after
    /// its record's other findings.
    mutating func checkImages() {
        guard !pending.isEmpty else { return }
        let batch = pending
        pending = []
        pendingImages = 0
        // Each distinct file is inspected once a run: 100,000 records over 5 images decode 5.
        var distinct: [(image: String, location: Diagnostic.Location)] = []
        var firstOfImage: [String: Int] = [:]
        for record in batch {
            guard let image = record.image, imageFindings[image] == nil,
                firstOfImage[image] == nil
            else { continue }
            firstOfImage[image] = distinct.count
            distinct.append((image, record.location))
        }
        let inspect = inspectImage
        let toInspect = distinct
        let results = parallelMap(
            count: toInspect.count, threads: ProcessInfo.processInfo.activeProcessorCount
        ) { index in inspect(toInspect[index].image, toInspect[index].location) }
        for (item, found) in zip(distinct, results) { imageFindings[item.image] = found }
        for record in batch {
            var found = record.found
            for var finding in record.image.flatMap({ imageFindings[$0] }) ?? [] {
                finding.location = record.location
                found.append(finding)
            }
            for finding in found { findings.add(finding) }
        }
    }

    /// Pairs closer than `minimumSpacing`, from a `NeighbourIndex` of the positions: each
    /// record is compared only with the few in the cells around it.
    mutating func findCloseNeighbours() {
        let index = NeighbourIndex(
            radius: Self.minimumSpacing, latitudes: latitudes, longitudes: longitudes)
        // In cell order, whose searches fall near each other in memory; each finding takes
        // its record's place in the order.
        let first = findings.reserve(entries.count)
        for current in index.pointsInCellOrder where isReported(Int(current)) {
            let latitude = latitudes[Int(current)]
            let longitude = longitudes[Int(current)]
            var closest: (other: Int32, distance: Double)?
            index.forEachCandidate(latitude: latitude, longitude: longitude) { other in
                // Report each pair once, on the later record.
                guard other < current else { return true }
                let distance = greatCircleDistance(
                    fromLatitude: latitude, longitude: longitude,
                    toLatitude: latitudes[Int(other)], longitude: longitudes[Int(other)])
                // The first found of equally close ones: the index's order decides.
                if distance < Self.minimumSpacing, closest.map({ distance < $0.distance }) ?? true {
                    closest = (other, distance)
                }
                return true
            }
            if let closest {
                findings.add(
                    Diagnostic(
                        .warning, DiagnosticCode.tooClose,
                        String(
                            format: "only %.1f m from '%@' (%@)", closest.distance,
                            keys[Int(closest.other)], locationText(closest.other)),
                        at: location(current)), reserved: first + Int(current))
            }
        }
    }

    /// Without game.bounds: a point whose exchanged position fits the others clearly better
    /// than the point as given was probably written lon/lat (`SwappedCheck`).
    mutating func findSwappedOutliers() {
        let check =
            swappedContext
            ?? SwappedCheck(positions: zip(latitudes, longitudes), count: entries.count)
        guard check.count >= 3 else { return }
        for index in entries.indices where latitudes[index].isFinite && isReported(index) {
            let latitude = latitudes[index]
            let longitude = longitudes[index]
            guard let suspect = check.suspect(latitude, longitude) else { continue }
            findings.add(
                Diagnostic(
                    .warning, DiagnosticCode.swappedCoordinates,
                    "coordinates look swapped (lon/lat): [\(latitude), \(longitude)] is "
                        + "\(Self.distanceText(suspect.given)) from the nearest other treasure; "
                        + "exchanged, it is \(Self.distanceText(suspect.exchanged)) from one "
                        + "(treasures usually lie \(Self.distanceText(suspect.spacing)) apart)",
                    at: location(Int32(index))))
        }
    }

    /// `84 km`, or `350 m` under a kilometre.
    static func distanceText(_ metres: Double) -> String {
        metres >= 1000 ? "\(Int(metres / 1000)) km" : "\(Int(metres)) m"
    }
}

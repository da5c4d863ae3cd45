import Foundation
import TroveBase

/// Checks that a record can be exported: a current geohash and the renditions it needs.
struct RecordChecker {
    let precision: Int
    let renditionNames: [String]
    let noun: String
    /// Whether this checker looks at positions and geohashes.
    let positions: Bool
    /// Whether this checker looks at renditions.
    let renditions: Bool
    /// The images `trove images` could not read, by record key: the image and why.
    var failedImages: [String: (source: String, reason: String)] = [:]

    func check(_ record: ExportRecord, problems: ExportProblems) {
        if positions {
            checkPosition(record, problems: problems)
        }
        // Most records have every rendition: those are done without reading the image.
        guard renditions, !record.imageBytes.isEmpty, !record.imageIsRemote,
            record.renditions.contains(where: { $0 == nil }), let image = record.image
        else {
            return
        }
        if let failed = failedImages[record.key], failed.source == image,
            record.renditions.contains(where: { $0 == nil })
        {
            problems.add(
                "\(noun)s whose image 'trove images' could not read (fix or replace the file)",
                "\(noun) \(record.key): \(image): \(failed.reason)")
            return
        }
        for (index, name) in renditionNames.enumerated() where record.renditions[index] == nil {
            problems.add(
                "\(noun)s whose image has no rendition yet (run 'trove images')",
                "\(noun) \(record.key): no '\(name)' rendition of \(image)")
        }
    }

    private func checkPosition(_ record: ExportRecord, problems: ExportProblems) {
        if let latitude = record.latitude, let longitude = record.longitude {
            let expected = Geohash.encode(
                latitude: latitude, longitude: longitude, precision: precision)
            if record.geohash == nil {
                problems.add(
                    "\(noun)s without a geohash (run 'trove geohash')", "\(noun) \(record.key)")
            } else if record.geohash != expected {
                problems.add(
                    "\(noun)s with a stale geohash (run 'trove geohash')",
                    "\(noun) \(record.key): \(record.geohash ?? "") should be \(expected)")
            }
        } else {
            problems.add("\(noun)s without a position", "\(noun) \(record.key)")
        }
    }
}

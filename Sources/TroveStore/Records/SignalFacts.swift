import Foundation

package struct SignalFacts {
    package var id: String
    package var user: String?
    package var latitude: Double
    package var longitude: Double
    package var description: String?
    package var date: String?
    package var moment: Date?
    package var photoHash: String?
    package var phash: UInt64?
    package var width: Int?
    package var height: Int?
    package var exifLatitude: Double?
    package var exifLongitude: Double?
    /// Why the photo's GPS position could not be read, when it has one.
    package var exifGPSProblem: String?
    package var photoProblem: String?
    package var status: String
    package var signals: String
}

/// What trove learns from a post's photo.
public struct PhotoFacts: Equatable, Sendable {
    /// A 128-bit fingerprint of the file's bytes (`ContentHash`), to spot duplicates.
    public var fingerprint: String
    /// Upright dimensions (EXIF orientation applied), when the header could be read.
    public var width: Int?
    /// Upright height in pixels.
    public var height: Int?
    /// EXIF GPS latitude, signed decimal degrees.
    public var exifLatitude: Double?
    /// EXIF GPS longitude, signed decimal degrees.
    public var exifLongitude: Double?
    /// EXIF DateTimeOriginal as ISO 8601 local time.
    public var exifTime: String?
    /// Why the EXIF GPS position could not be read, when the photo has one.
    public var exifGPSProblem: String?
    /// 64-bit perceptual hash, when the pixels could be decoded.
    public var perceptualHash: UInt64?
    /// Why the photo could not be read, when it could not.
    public var problem: String?

    /// Creates the value from its parts.
    public init(
        fingerprint: String, width: Int? = nil, height: Int? = nil, exifLatitude: Double? = nil,
        exifLongitude: Double? = nil, exifTime: String? = nil, perceptualHash: UInt64? = nil,
        problem: String? = nil
    ) {
        self.fingerprint = fingerprint
        self.width = width
        self.height = height
        self.exifLatitude = exifLatitude
        self.exifLongitude = exifLongitude
        self.exifTime = exifTime
        self.perceptualHash = perceptualHash
        self.problem = problem
    }
}

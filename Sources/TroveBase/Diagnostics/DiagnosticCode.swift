/// The stable codes of data problems. Codes never change meaning once shipped; users
/// grep for them and editors link them.
public enum DiagnosticCode {
    // MARK: - Treasure rows: errors that stop an import

    /// A file that cannot be opened or read at all.
    public static let unreadableFile = "T100"

    /// Latitude outside [-90, 90].
    public static let latitudeOutOfRange = "T101"
    /// Longitude outside [-180, 180].
    public static let longitudeOutOfRange = "T102"
    /// A coordinate that is not a finite number (text, NaN, Infinity).
    public static let notANumber = "T103"
    /// A row without a name.
    public static let missingName = "T104"
    /// A row without latitude or longitude.
    public static let missingPosition = "T105"
    /// A key Firebase cannot store.
    public static let illegalKey = "T106"
    /// The file lacks a required column.
    public static let missingColumn = "T107"
    /// A CSV row with more or fewer fields than the header.
    public static let raggedRow = "T108"
    /// A quoted CSV field that never ends.
    public static let unterminatedQuote = "T109"
    /// Bytes that are not UTF-8 (and no `--encoding` given).
    public static let invalidEncoding = "T110"
    /// A GeoJSON geometry other than Point.
    public static let notAPoint = "T111"
    /// Malformed JSON or GeoJSON structure.
    public static let brokenJSON = "T112"
    /// Two records with the same key.
    public static let duplicateKey = "T113"
    /// An empty name.
    public static let emptyName = "T115"

    // MARK: - Images and geohashes (errors)

    /// An image file that does not exist.
    public static let imageMissing = "T120"
    /// An image file that cannot be read or decoded.
    public static let imageUnreadable = "T121"
    /// An image that is neither JPEG nor PNG.
    public static let imageNotJPEGOrPNG = "T122"
    /// An image over the pixel limit.
    public static let imageTooLarge = "T123"

    // MARK: - Pipeline state (warnings: the next command fixes them)

    /// No geohash yet: run `trove geohash`.
    public static let geohashMissing = "T130"
    /// A geohash that no longer matches the position or precision.
    public static let geohashStale = "T131"
    /// Something the export of the layout `validate --layout` names would refuse: a value
    /// that does not convert, a key or value over the database's limits, a missing
    /// rendition.
    public static let exportRefused = "T140"

    // MARK: - Warnings

    /// Text with leading or trailing white space.
    public static let surroundingSpaces = "T201"
    /// Position (0, 0), usually a missing value.
    public static let nullIsland = "T202"
    /// Latitude and longitude that look exchanged.
    public static let swappedCoordinates = "T203"
    /// Outside `game.bounds`.
    public static let outsideBounds = "T204"
    /// Two treasures closer than 5 m.
    public static let tooClose = "T205"
    /// Two treasures with the same name.
    public static let duplicateName = "T206"
    /// An all-numeric key: Firebase turns objects with such keys into arrays.
    public static let numericKey = "T207"
    /// A name longer than the apps' callouts show.
    public static let longName = "T208"
    /// An image smaller than 256 px on its short side.
    public static let imageTooSmall = "T209"
    /// Images that need download URLs, and no `storage.bucket` to build them from.
    public static let missingBucket = "T210"

    // MARK: - About a whole file (warnings said once)

    /// Keys derived from names while a column holds better ones.
    public static let betterKeyColumn = "T220"
    /// A column the last import of the file had is gone.
    public static let columnGone = "T221"
    /// A layout placeholder names a column no record has.
    public static let unknownColumn = "T222"
    /// A GeoJSON name or description that is not text.
    public static let notText = "T223"
    /// A GeoJSON file whose positions were converted from another coordinate system.
    public static let convertedCoordinates = "T224"
}

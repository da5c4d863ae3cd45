import TroveBase
import TroveStore

/// What the reading thread notices about a file as a whole, to say once at its end
/// instead of once a row: keys derived from names where a column would serve better, and
/// all-digit keys.
struct FileNotes {
    let file: String
    private var firstDerived: TreasureInput?
    private var betterColumn: String?
    private var digitKeys: [String] = []
    private var digitKeyCount = 0
    private var firstDigitKey: Diagnostic.Location?

    package init(file: String) { self.file = file }

    /// Columns that name a record better than its name does: identifiers and codes, or
    /// the name in Latin letters.
    static let keyLikeColumns: Set<String> = [
        "slug", "code", "ref", "uuid", "guid", "fid", "gid", "ident", "iata", "icao", "iata_code",
        "icao_code", "osm_id", "geonameid", "objectid", "asciiname", "ascii_name", "name_ascii",
        "nameascii", "name_en", "name:en", "name_latin", "city_ascii",
    ]

    static func isKeyLike(_ column: String) -> Bool {
        let folded = TreasureField.fold(column)
        return keyLikeColumns.contains(folded) || folded.hasSuffix("_id")
    }

    /// Notes the key a row was stored under.
    mutating func keyed(_ key: String, explicit: Bool, input: TreasureInput) {
        if !explicit, firstDerived == nil {
            firstDerived = input
            betterColumn =
                input.extra.first { Self.isKeyLike($0.name) && !$0.value.isEmpty }?.name
        }
        if Self.isAllDigits(key) {
            digitKeyCount += 1
            if digitKeys.count < 3 { digitKeys.append(key) }
            if firstDigitKey == nil {
                firstDigitKey = input.location
                firstDigitKey?.key = key
            }
        }
    }

    /// Whether a key is all ASCII digits, which Firebase reads as an array index.
    static func isAllDigits(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// The warnings, each once for the file.
    func warnings() -> [Diagnostic] {
        var warnings: [Diagnostic] = []
        if let input = firstDerived, let column = betterColumn {
            var location = input.location
            location.key = nil
            location.column = nil
            location.jsonPath = nil
            warnings.append(
                Diagnostic(
                    .warning, DiagnosticCode.betterKeyColumn,
                    "keys are derived from the names (first '\(TreasureCheck.shown(input.name))'), "
                        + "while '\(TreasureCheck.shown(column))' would serve better",
                    at: location,
                    hint: "name that column 'key': keys from it stay the same whatever the "
                        + "names become"))
        }
        if digitKeyCount > 0, let location = firstDigitKey {
            let more = digitKeyCount > digitKeys.count ? ", …" : ""
            warnings.append(
                Diagnostic(
                    .warning, DiagnosticCode.numericKey,
                    "\(digitKeyCount) key\(digitKeyCount == 1 ? " is" : "s are") all digits "
                        + "(\(digitKeys.joined(separator: ", "))\(more)); Firebase turns an "
                        + "object whose keys are all such numbers into an array",
                    at: location,
                    hint: "prefix them, e.g. 't\(digitKeys[0])', give a key column, or import "
                        + "with --ignore-numeric-ids to key those rows by their names"))
        }
        return warnings
    }
}

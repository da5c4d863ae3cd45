import Foundation
import TroveBase

/// The rows an import skipped with `--skip-invalid`, as a CSV file to fix them in.
///
/// Columns: `file,line,feature,code,reason` (where and why), then the skipped row itself:
/// for a CSV source its fields under the file's header names (made unique as the reader
/// makes them; several files give the union of their columns), for GeoJSON the feature's
/// JSON text in a `geojson` column. The rows are read again from the sources, so nothing
/// is held in memory during the import; a source that cannot be read again (it changed
/// meanwhile) leaves only the first five columns.
public enum RejectedRows {
    /// The CSV text for `rejects`, diagnostics of rows of `sources` read in `encoding`.
    public static func csv(
        _ rejects: [Diagnostic], sources: [TreasureFileImport.Source], encoding: TextEncoding
    ) -> String {
        var columns: [String] = []
        var columnIndex: [String: Int] = [:]
        func column(_ name: String) {
            if columnIndex[name] == nil {
                columnIndex[name] = columns.count
                columns.append(name)
            }
        }
        var originals = [[String: String]](repeating: [:], count: rejects.count)
        var geojson = false
        for source in sources {
            let wanted = rejects.indices.filter { rejects[$0].location.file == source.displayPath }
            if wanted.isEmpty { continue }
            let format =
                source.format ?? TreasureFormat(path: source.path)
                ?? (try? TreasureReader.sniffFormat(source.path, source.displayPath)) ?? .csv
            switch format {
            case .csv:
                guard var reader = Self.csvReader(source, encoding: encoding),
                    let header = try? reader.next()
                else { continue }
                var names = CSVTreasureSource.uniqueNames(header.fields)
                names.forEach(column)
                var byLine: [Int: [Int]] = [:]
                for index in wanted {
                    if let line = rejects[index].location.line {
                        byLine[line, default: []].append(index)
                    }
                }
                while let record = try? reader.next() {
                    guard let targets = byLine[record.line] else { continue }
                    // A ragged row's fields past the header keep their place too.
                    while names.count < record.fields.count {
                        names.append("column_\(names.count + 1)")
                        column(names[names.count - 1])
                    }
                    var row: [String: String] = [:]
                    for (position, field) in record.fields.enumerated() {
                        row[names[position]] = field
                    }
                    for target in targets { originals[target] = row }
                }
            case .geojson:
                let features = Set(wanted.compactMap { rejects[$0].location.feature })
                let texts =
                    if let contents = source.contents {
                        GeoJSONTreasureSource.featureTexts(
                            features, stream: JSONStream(bytes: contents),
                            displayPath: source.displayPath, encoding: encoding)
                    } else {
                        TreasureReader.featureTexts(
                            features, path: source.path, displayPath: source.displayPath,
                            encoding: encoding)
                    }
                for index in wanted {
                    guard let feature = rejects[index].location.feature,
                        let text = texts[feature]
                    else { continue }
                    originals[index]["\u{0}geojson"] = text
                    geojson = true
                }
            }
        }
        var text = CSVWriter.record(
            ["file", "line", "feature", "code", "reason"] + columns + (geojson ? ["geojson"] : []))
        for (index, reject) in rejects.enumerated() {
            let location = reject.location
            var fields = [
                location.file ?? "", location.line.map(String.init) ?? "",
                location.feature.map(String.init) ?? "", reject.code, reject.message,
            ]
            fields += columns.map { originals[index][$0] ?? "" }
            if geojson { fields.append(originals[index]["\u{0}geojson"] ?? "") }
            text += CSVWriter.record(fields)
        }
        return text
    }

    /// The source read again as CSV, through gzip when it is compressed.
    private static func csvReader(_ source: TreasureFileImport.Source, encoding: TextEncoding)
        -> CSVReader?
    {
        if let contents = source.contents {
            return CSVReader(bytes: contents, displayPath: source.displayPath, encoding: encoding)
        }
        guard let head = try? TreasureReader.head(source.path, source.displayPath) else {
            return nil
        }
        guard GzipInput.isGzip(head) else {
            return try? CSVReader(
                path: source.path, displayPath: source.displayPath, encoding: encoding)
        }
        guard let descriptor = try? TreasureReader.open(source.path, source.displayPath),
            let gzip = GzipInput(descriptor: descriptor, closes: true)
        else { return nil }
        return try? CSVReader(
            gzip: gzip, displayPath: source.displayPath, encoding: encoding, delimiter: nil)
    }
}

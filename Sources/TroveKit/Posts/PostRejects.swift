import TroveBase

/// The records `import posts --skip-invalid` set aside, as a CSV file to fix them in, like
/// `RejectedRows` for treasures: `file,line,record,reason`, then the record itself (a CSV
/// record's fields under the file's header names, a JSON record's text in a `json`
/// column). Passwords, e-mail addresses and display names are not copied.
public enum PostRejects {
    /// The CSV text for `rejects`.
    public static func csv(_ rejects: [PostReject]) -> String {
        var columns: [String] = []
        for reject in rejects {
            for name in reject.fields.keys.sorted() where !columns.contains(name) {
                columns.append(name)
            }
        }
        let json = rejects.contains { $0.json != nil }
        var header = ["file", "line", "record", "reason"] + columns
        if json { header.append("json") }
        var text = CSVWriter.record(header)
        for reject in rejects {
            var fields = [
                reject.file, reject.line.map(String.init) ?? "", reject.record ?? "",
                reject.reason,
            ]
            fields += columns.map { reject.fields[$0] ?? "" }
            if json { fields.append(reject.json ?? "") }
            text += CSVWriter.record(fields)
        }
        return text
    }
}

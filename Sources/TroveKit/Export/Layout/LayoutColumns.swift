import TroveBase
import TroveSQLite
import TroveStore

/// Checks a layout against the data: a placeholder naming an extra column that no record
/// has (`{extra.ciyt}`, or `{extra.State}` where the column is `state`) writes nothing
/// for any record, which no export would otherwise notice.
public enum LayoutColumns {
    /// One warning per extra column the layout reads and no treasure has, with the
    /// closest name the data has. Nothing for a posts layout, or an empty workspace.
    ///
    /// - Throws: `SQLiteError`.
    public static func findings(for layout: Layout, in workspace: Workspace) throws
        -> [Diagnostic]
    {
        guard layout.records == .treasures else { return [] }
        var read: [(column: String, path: String)] = []
        for template in layout.paths {
            for case .extra(let name, _) in template.fields
            where !read.contains(where: { $0.column == name }) {
                read.append((name, template.text))
            }
        }
        guard !read.isEmpty else { return [] }
        let names = try columnNames(in: workspace.database)
        guard !names.isEmpty else { return [] }
        let known = Set(names)
        return read.filter { !known.contains($0.column) }.map { item in
            Diagnostic(
                .warning, DiagnosticCode.unknownColumn,
                (item.column == "alt"
                    ? "{alt} in '\(item.path)' reads an altitude no treasure has"
                    : "{extra.\(item.column)} in '\(item.path)' names a column no treasure has")
                    + ColumnSuggestion.text(for: item.column, among: names),
                at: .init(file: layout.name), hint: "no record writes anything for it")
        }
    }

    /// The extra column names the treasures have: from the columns each file was last
    /// read with, or, where a file's were never recorded, from the treasures themselves.
    static func columnNames(in database: Database) throws -> [String] {
        var names: [String] = []
        var seen: Set<String> = []
        func add(_ name: String) {
            if seen.insert(name).inserted { names.append(name) }
        }
        let store = ExportStore(database)
        for columns in try store.recordedExtraColumns() {
            var parser = JSONParser(Array(columns.utf8))
            if case .array(let values)? = try? parser.parseValue() {
                for case .string(let name) in values { add(name) }
            }
        }
        if try store.hasUnrecordedExtraColumns() {
            for name in try store.unrecordedExtraColumns() { add(name) }
        }
        return names
    }
}

import Foundation

/// The starter files and layouts shipped in `Templates/`, found next to the source tree,
/// or under `PREFIX/share/trove/Templates` when the binary is installed.
public struct TemplateLibrary: Sendable {
    /// The folder holding the templates.
    public let root: URL

    /// Finds the templates folder: `$TROVE_TEMPLATES`, then `../share/trove/Templates`
    /// beside the executable, then the source tree this binary was built from.
    ///
    /// - Throws: `InputError` when none exists.
    public init(
        environment: [String: String], executablePath: String = CommandLine.arguments.first ?? ""
    ) throws {
        var candidates: [URL] = []
        if let override = environment["TROVE_TEMPLATES"] {
            candidates.append(URL(fileURLWithPath: override))
        }
        let executable = URL(fileURLWithPath: executablePath)
            .resolvingSymlinksInPath().deletingLastPathComponent()
        candidates.append(
            executable.deletingLastPathComponent().appendingPathComponent("share/trove/Templates"))
        // Sources/TroveKit/TemplateLibrary.swift → the repository root.
        let sourceRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(sourceRoot.appendingPathComponent("Templates"))
        guard let found = candidates.first(where: { Self.isDirectory($0) }) else {
            throw InputError(
                "Templates", "the templates folder was not found",
                hint: "set TROVE_TEMPLATES to the Templates folder, or reinstall with make install")
        }
        root = found
    }

    public init(root: URL) {
        self.root = root
    }

    /// Template names (paths relative to the root, e.g. `treasures.csv`,
    /// `layouts/flatirongo.json`), sorted.
    public func names() -> [String] {
        guard
            let enumerator = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        var names: [String] = []
        let prefix = root.standardizedFileURL.path + "/"
        for case let url as URL in enumerator where !Self.isDirectory(url) {
            let path = url.standardizedFileURL.path
            if path.hasPrefix(prefix) && !url.lastPathComponent.hasPrefix(".") {
                names.append(String(path.dropFirst(prefix.count)))
            }
        }
        return names.sorted()
    }

    /// The file for `name`: an exact name, or a unique one without folder or extension
    /// (`flatirongo` finds `layouts/flatirongo.json`).
    public func url(for name: String) -> URL? {
        let names = names()
        if names.contains(name) { return root.appendingPathComponent(name) }
        let matches = names.filter {
            let file = ($0 as NSString).lastPathComponent
            return file == name || (file as NSString).deletingPathExtension == name
        }
        return matches.count == 1 ? root.appendingPathComponent(matches[0]) : nil
    }

    /// A built-in layout by name (`flatirongo`, `trashmapper`).
    public func layout(named name: String) -> URL? {
        let url = root.appendingPathComponent("layouts/\(name).json")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            && isDirectory.boolValue
    }
}

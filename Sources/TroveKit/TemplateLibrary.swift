import Foundation
import TroveBase

/// The starter files, layouts and review sheet of `Templates/`, compiled into the binary
/// (by the EmbedTemplates build plugin), so a copied or installed `trove` needs nothing
/// beside it. `$TROVE_TEMPLATES` names a folder whose files take the place of the built-in
/// ones of the same name (an edited layout or review sheet); the others stay built in.
public struct TemplateLibrary: Sendable {
    /// The override folder, when `$TROVE_TEMPLATES` names one.
    public let overrides: URL?
    /// Every template by name (`treasures.csv`, `layouts/flatirongo.json`).
    private let files: [String: Data]

    /// The built-in templates, overridden by the files of `overrideFolder` (as
    /// `$TROVE_TEMPLATES` names it) when it is given.
    ///
    /// - Throws: `InputError` when `overrideFolder` is not a readable folder.
    public init(overrideFolder: String?) throws {
        guard let override = overrideFolder, !override.isEmpty else {
            try self.init(overrides: nil)
            return
        }
        let folder = URL(fileURLWithPath: override)
        guard Self.isDirectory(folder) else {
            throw InputError(
                override, "TROVE_TEMPLATES does not name a folder",
                hint: "unset TROVE_TEMPLATES to use the built-in templates")
        }
        try self.init(overrides: folder)
    }

    /// The built-in templates with the files of `folder` in place of theirs.
    ///
    /// - Throws: `InputError` when a file of `folder` cannot be read.
    public init(overrides folder: URL?) throws {
        var files = Self.builtIn
        if let folder {
            for (name, url) in Self.files(in: folder) {
                guard let data = FileManager.default.contents(atPath: url.path) else {
                    throw InputError(url.path, "cannot read the template")
                }
                files[name] = data
            }
        }
        self.overrides = folder
        self.files = files
    }

    /// The templates compiled into this binary.
    public static let builtIn: [String: Data] = {
        var files: [String: Data] = [:]
        for file in EmbeddedTemplates.files {
            if let text = file.text {
                files[file.name] = Data(text.utf8)
            } else if let base64 = file.base64, let data = Data(base64Encoded: base64) {
                files[file.name] = data
            }
        }
        return files
    }()

    /// Template names (paths below `Templates/`, e.g. `treasures.csv`,
    /// `layouts/flatirongo.json`), sorted.
    public func names() -> [String] {
        files.keys.sorted()
    }

    /// The full name for `name`: an exact name, or a unique one without folder or
    /// extension (`flatirongo` finds `layouts/flatirongo.json`).
    public func name(for name: String) -> String? {
        if files[name] != nil { return name }
        let matches = names().filter {
            let file = ($0 as NSString).lastPathComponent
            return file == name || (file as NSString).deletingPathExtension == name
        }
        return matches.count == 1 ? matches[0] : nil
    }

    /// The bytes of template `name` (a full name from `names()`).
    public func contents(of name: String) -> Data? {
        files[name]
    }

    /// The names of the built-in layouts (`flatirongo`, `trashmapper`).
    public func layoutNames() -> [String] {
        names().filter { $0.hasPrefix("layouts/") && $0.hasSuffix(".json") }.map {
            String($0.dropFirst("layouts/".count).dropLast(".json".count))
        }
    }

    /// The JSON of built-in layout `name`.
    public func layout(named name: String) -> Data? {
        files["layouts/\(name).json"]
    }

    private static func files(in folder: URL) -> [(String, URL)] {
        guard
            let enumerator = FileManager.default.enumerator(
                at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        var found: [(String, URL)] = []
        let prefix = folder.standardizedFileURL.path + "/"
        for case let url as URL in enumerator where !isDirectory(url) {
            let path = url.standardizedFileURL.path
            if path.hasPrefix(prefix) && !url.lastPathComponent.hasPrefix(".") {
                found.append((String(path.dropFirst(prefix.count)), url))
            }
        }
        return found
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            && isDirectory.boolValue
    }
}

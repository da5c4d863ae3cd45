import TroveBase
import TroveStore

/// Whether an output's path is a file the workspace records as read (a file treasures or
/// posts were imported from, a treasure's image, a post's photo) or a rendition it made:
/// such a path is never an output, whatever the flags, since `--force` replaces only files
/// trove did not write and does not read.
public enum RecordedInputs {
    /// What the workspace records at `path` (absolute), in words that follow "is": `a file
    /// treasures were imported from`, `the image of treasure hairy-harry`; nil for none.
    ///
    /// Sources are compared as files (`OutputPaths.same`: by device and inode, through
    /// links), renditions by the end of the path, images and photos by path, and only with
    /// `images` (they take a scan of the treasures and posts: asked when the path holds a
    /// file that is not the output's own kind, and so might be one).
    ///
    /// - Throws: `SQLiteError`.
    public static func recorded(at path: String, in workspace: Workspace, images: Bool)
        throws -> String?
    {
        let store = RecordedInputStore(workspace)
        for source in try store.sources() {
            switch source {
            case .treasureSource(let identity), .postSource(let identity):
                guard let file = workspace.file(ofSource: identity),
                    OutputPaths.same(path, file)
                else { continue }
                return describe(source)
            default: continue
            }
        }
        var candidates = [LexicalPath.normalized(path)]
        let resolved = OutputPaths.resolved(path)
        if resolved != candidates[0] { candidates.append(resolved) }
        // A rendition's path in its folder is `treasures/KEY/NAME-HASH.EXT`.
        var ends: [String] = []
        for candidate in candidates {
            let components = LexicalPath.components(candidate)
            for count in 2...max(2, min(components.count, 4)) where count <= components.count {
                ends.append(components.suffix(count).joined(separator: "/"))
            }
        }
        if let rendition = try store.rendition(at: ends) { return describe(rendition) }
        if images, let image = try store.image(at: candidates) { return describe(image) }
        return nil
    }

    private static func describe(_ input: RecordedInput) -> String {
        switch input {
        case .treasureSource(let identity):
            "a file treasures were imported from (\(identity))"
        case .postSource(let identity): "a file posts were imported from (\(identity))"
        case .treasureImage(let key): "the image of treasure \(key)"
        case .postPhoto(let id): "the photo of post \(id)"
        case .rendition(let path): "a rendition trove made (\(path))"
        }
    }
}

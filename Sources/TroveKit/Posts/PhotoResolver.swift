import Foundation
import TroveBase
import TroveImaging
import TroveStore

/// Computes `PhotoFacts` from a photo's bytes.
protocol PhotoInspecting: Sendable {
    func inspect(_ bytes: [UInt8]) -> PhotoFacts
}

/// The inspector backed by TroveImaging: header, EXIF and a small decode for the pHash.
struct PhotoInspector: PhotoInspecting {
    func inspect(_ bytes: [UInt8]) -> PhotoFacts {
        var facts = PhotoFacts(fingerprint: ContentHash.hex(bytes))
        do {
            // 64 px is plenty for a 32×32 pHash and keeps the decode cheap (DCT scaling).
            let image = try Thumbnailer.decodeForAnalysis(bytes, minimumSide: 64)
            let swaps = image.metadata.orientation.swapsDimensions
            facts.width = swaps ? image.header.height : image.header.width
            facts.height = swaps ? image.header.width : image.header.height
            facts.exifLatitude = image.metadata.latitude
            facts.exifLongitude = image.metadata.longitude
            facts.exifTime = image.metadata.captureTime
            facts.exifGPSProblem = image.metadata.gpsProblem
            facts.perceptualHash = PerceptualHash.hash(of: image.bitmap)
        } catch {
            facts.problem = error.description
        }
        return facts
    }
}

/// How a post's photo reference turned out.
public enum PhotoResolution: Equatable, Sendable {
    /// No reference given.
    case none
    /// A file inside the photos folder (its real, absolute path).
    case file(String)
    /// The reference leaves the photos folder; the file was not opened.
    case refused(String)
    /// Nothing by that name in the photos folder.
    case missing(String)
}

/// Finds photos inside one folder and nowhere else.
///
/// A reference is taken relative to the folder. Absolute paths, `..` components and
/// symbolic links that lead out are refused before anything is opened: only the
/// resolved real path, checked to lie inside the folder's real path, is ever read.
/// Download URLs (`https://firebasestorage.googleapis.com/v0/b/B/o/images%2Fp.jpg?…`)
/// are looked up by their object path, then by file name.
public struct PhotoResolver: Sendable {
    /// The folder's real path.
    public let root: String

    /// - Returns: nil when `folder` does not exist or is not a folder.
    public init?(folder: String) {
        guard let real = Self.realPath(folder) else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory),
            isDirectory.boolValue
        else { return nil }
        root = real
    }

    /// Resolves one reference.
    public func resolve(_ reference: String?) -> PhotoResolution {
        guard let reference, !reference.isEmpty else { return .none }
        let lowered = reference.lowercased()
        var candidates: [String]
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
            || lowered.hasPrefix("gs://")
        {
            guard let objectPath = Self.objectPath(reference) else {
                return .missing("cannot tell a file name from the URL")
            }
            candidates = [objectPath]
            if let name = objectPath.split(separator: "/").last, String(name) != objectPath {
                candidates.append(String(name))
            }
        } else {
            candidates = [reference]
        }
        var lastProblem = PhotoResolution.missing("not found in \(root)")
        for candidate in candidates {
            switch check(candidate) {
            case .file(let path): return .file(path)
            case .refused(let why): return .refused(why)
            case let other: lastProblem = other
            }
        }
        return lastProblem
    }

    private func check(_ relative: String) -> PhotoResolution {
        if relative.hasPrefix("/") || relative.hasPrefix("\\") || relative.hasPrefix("~")
            || relative.lowercased().hasPrefix("file:")
            || (relative.count >= 2 && relative.dropFirst().first == ":")
        {
            return .refused("absolute path outside the photos folder")
        }
        let components = relative.split(whereSeparator: { $0 == "/" || $0 == "\\" })
        if components.contains("..") {
            return .refused("'..' leads outside the photos folder")
        }
        if relative.contains("\0") { return .refused("the reference contains a NUL byte") }
        let joined = root + "/" + components.joined(separator: "/")
        // realpath follows links without opening the target, so a link that leads out is
        // caught here, before any read.
        guard let real = Self.realPath(joined) else {
            return .missing(
                "\(relative) not found in the photos folder" + PathSuggestion.caseOnly(for: joined))
        }
        guard real.hasPrefix(root + "/") else {
            return .refused("a symbolic link leads outside the photos folder")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory),
            !isDirectory.boolValue
        else { return .missing("\(relative) is not a file") }
        return .file(real)
    }

    /// Reads a resolved photo the bounded way every image is read (`ImageFile`): a user's
    /// photo may be a FIFO, a device or a sparse 20 GB file.
    static func read(_ path: String) -> Result<[UInt8], ImageFile.Failure> {
        Result { () throws(ImageFile.Failure) in try ImageFile.read(path) }
    }

    /// The object path of a Storage download URL, percent-decoded.
    static func objectPath(_ url: String) -> String? {
        var rest = Substring(url)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            rest = rest[..<query]
        }
        // Drop the host.
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        var path = rest[rest.index(after: slash)...]
        if let object = path.range(of: "/o/") { path = path[object.upperBound...] }
        let decoded = String(path).removingPercentEncoding ?? String(path)
        return decoded.isEmpty ? nil : decoded
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// One photo file within a run: by its `FileStamp`, or by its path when it has none.
struct PhotoFile: Hashable {
    private let stamp: FileStamp?
    private let path: String?

    init(_ path: String) {
        stamp = FileStamp(path: path)
        self.path = stamp == nil ? path : nil
    }
}

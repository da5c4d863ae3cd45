import Foundation
import TroveBase
import TroveStore

extension PostPull {
    /// Marks the photo objects to be looked at again before their files are used: those
    /// whose file left the photo folder, and, from a listing of each bucket the workspace
    /// holds photos from (once, under the prefix its objects share, a request per thousand
    /// objects), those whose generation or MD5 differs or that are gone. A photo replaced
    /// in the bucket under the same name is so noticed without asking for every object's
    /// metadata.
    ///
    /// - Returns: whether any object is to be looked at again.
    /// - Throws: `SQLiteError`, `WorkspaceError`.
    @discardableResult
    func revalidatePhotos() throws -> Bool {
        let store = PostStore(workspace)
        var anyStale = false
        for (bucket, first, last) in try store.photoObjectRanges() {
            var stale: [String] = []
            // A file removed from the photo folder by hand.
            let all = try store.photoObjectCursor(in: bucket, prefix: "")
            while let object = try all() {
                if object.stale || !folder.holds(object.file, bytes: object.bytes) {
                    stale.append(object.name)
                }
            }
            let prefix = String(
                decoding: zip(first.utf8, last.utf8).prefix { $0 == $1 }.map(\.0), as: UTF8.self)
            if let note = try compareListing(bucket: bucket, prefix: prefix, into: &stale) {
                notes.append(
                    "\(note); photos replaced in gs://\(bucket) under the same name are not "
                        + "noticed by this run")
            }
            if !stale.isEmpty {
                anyStale = true
                try workspace.write {
                    try store.markPhotoObjectsStale(bucket: bucket, names: stale)
                }
            }
        }
        return anyStale
    }

    /// Walks the bucket's listing beside the recorded objects, both in byte order of
    /// their names, adding to `stale` the recorded ones that changed or are gone.
    ///
    /// - Returns: why the listing could not be compared, or nil.
    private func compareListing(bucket: String, prefix: String, into stale: inout [String])
        throws -> String?
    {
        let next = try PostStore(workspace).photoObjectCursor(in: bucket, prefix: prefix)
        var recorded = try next()
        var previous: [UInt8]?
        var ordered = true
        var failure: String?
        var found: [String] = []
        let listed = Result { () throws(PullError) in
            try photos.list(bucket: bucket, prefix: prefix) { name, generation, md5 in
                let listed = Array(name.utf8)
                if let previous, !previous.lexicographicallyPrecedes(listed) { ordered = false }
                previous = listed
                guard ordered, failure == nil else { return }
                do {
                    // Recorded objects before this one are not in the bucket any more.
                    while let object = recorded,
                        Array(object.name.utf8).lexicographicallyPrecedes(listed)
                    {
                        found.append(object.name)
                        recorded = try next()
                    }
                    if let object = recorded, object.name == name {
                        if object.generation != generation || object.md5 != md5 {
                            found.append(object.name)
                        }
                        recorded = try next()
                    }
                } catch {
                    failure = "\(error)"
                }
            }
        }
        if case .failure(let error) = listed { return error.description }
        if let failure { throw PullError("cannot read the workspace's photo records: \(failure)") }
        guard ordered else { return "gs://\(bucket) listed its objects out of order" }
        while let object = recorded {
            found.append(object.name)
            recorded = try next()
        }
        stale += found
        return nil
    }
}

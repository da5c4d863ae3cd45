import Foundation
import TroveHTTP
import TroveImaging
import TroveKit

// Photos, rendered on demand at the size the page asks for, cached, without metadata.

extension ReviewServer {
    func photo(_ request: ServerRequest) throws -> ServerResponse {
        let id = request.query["id"] ?? ""
        guard let size = Int(request.query["size"] ?? ""), Self.photoSizes.contains(size) else {
            return Self.error(400, "size", "size is one of 160, 480, 960, 1600")
        }
        let found = try locked { try PostQuery(workspace: workspace).post(id) }
        guard let post = found, let path = post.photo else {
            return Self.error(404, "photo", "no photo for this post")
        }
        let key = "\(id)\u{1F}\(post.photoHash ?? "")\u{1F}\(size)"
        photoLock.lock()
        let cached = photos.get(key)
        photoLock.unlock()
        if let cached {
            return ServerResponse(
                status: 200, type: cached.type, body: cached.bytes,
                headers: [("Cache-Control", "private, max-age=300")])
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber
        guard (bytes?.intValue ?? .max) <= 64 << 20,
            let data = FileManager.default.contents(atPath: path).map(Array.init)
        else {
            return Self.error(404, "photo", "the photo cannot be read")
        }
        // Re-encoded from pixels: no EXIF or other metadata leaves with it.
        guard
            let image = try? Thumbnailer.render(
                source: data, box: (size, size), mode: .fit, quality: 80)
        else { return Self.error(404, "photo", "the photo cannot be decoded") }
        let rendition = PhotoCache.Entry(
            type: image.format == .png ? "image/png" : "image/jpeg", bytes: image.bytes)
        photoLock.lock()
        photos.put(key, rendition)
        photoLock.unlock()
        return ServerResponse(
            status: 200, type: rendition.type, body: rendition.bytes,
            headers: [("Cache-Control", "private, max-age=300")])
    }
}

/// Renditions made for the page, the most recent few hundred kept.
struct PhotoCache {
    struct Entry {
        var type: String
        var bytes: [UInt8]
    }

    private var entries: [String: Entry] = [:]
    private var order: [String] = []
    let capacity = 400

    func get(_ key: String) -> Entry? { entries[key] }

    mutating func put(_ key: String, _ entry: Entry) {
        if entries[key] == nil { order.append(key) }
        entries[key] = entry
        if order.count > capacity {
            entries[order.removeFirst()] = nil
        }
    }
}

import Foundation
import TroveKit

/// `trove import posts FILE [--photos DIR]`.
enum ImportPostsCommand {
    static let command = Command(
        "posts", abstract: "Import user-submitted posts for review.",
        discussion: """
            Reads a Realtime Database export (Users/{user}/TaggedLocations/{id} or
            Locations/{id}), CSV, or newline-delimited JSON (.ndjson, .jsonl) with
            id,user,lat,lon,description,date,photo. Photos are looked up inside --photos
            (default: the file's folder) and nowhere else. Password fields and e-mail
            addresses are never stored. Re-importing is idempotent; a decided post whose
            content changed goes back to pending. Exit 1 when a photo reference was
            refused for leading outside the photos folder.
            """,
        arguments: [Argument("file", help: "The export, CSV or NDJSON file.", role: .input)],
        options: [
            Option(
                "photos", value: "dir", help: "The folder holding the photos.", role: .input)
        ],
        formats: [.text, .json]
    ) { invocation in
        let file = invocation.argument("file")!
        let path = invocation.resolve(file)
        let photos =
            invocation.option("photos").map(invocation.resolve)
            ?? (path as NSString).deletingLastPathComponent
        guard let resolver = PhotoResolver(folder: photos) else {
            throw InputError(invocation.option("photos") ?? photos, "no such folder")
        }
        let input = try PostReader.read(path: path, name: file)
        let workspace = try invocation.openWorkspace()
        let summary = try PostImporter(workspace: workspace, photos: resolver).run(input)
        report(summary, file: file, invocation)
        return summary.refusedPhotos.isEmpty ? .success : .problems
    }

    static func report(_ summary: PostImportSummary, file: String, _ invocation: Invocation) {
        for (id, reason) in summary.refusedPhotos {
            invocation.warn("warning: photo of post \(id) refused: \(reason)")
        }
        for (id, reason) in summary.photoProblems {
            invocation.note("note: photo of post \(id): \(reason)")
        }
        for id in summary.reopened {
            invocation.note("note: post \(id) changed after a decision and is pending again")
        }
        if invocation.format == .json {
            let refused = summary.refusedPhotos.map {
                JSONObject(["id": $0.id, "reason": $0.reason])
            }
            let dropped = JSONObject([
                "passwords": summary.droppedPasswords, "emails": summary.droppedEmails,
            ])
            invocation.print(
                JSONObject([
                    "new": summary.new, "updated": summary.updated,
                    "unchanged": summary.unchanged, "reopened": summary.reopened,
                    "refused_photos": refused, "dropped": dropped,
                ]).jsonText)
            return
        }
        invocation.note(
            "imported \(summary.imported) posts (\(summary.new) new, \(summary.updated) updated, "
                + "\(summary.unchanged) unchanged) from \(file)")
        if summary.droppedPasswords + summary.droppedEmails > 0 {
            invocation.note(
                "dropped \(summary.droppedPasswords) password fields and "
                    + "\(summary.droppedEmails) e-mail addresses (never stored)")
        }
    }
}

import Foundation
import TroveBase
import TroveCommandLine
import TroveKit

/// `trove import posts FILE [--photos DIR]`.
enum ImportPostsCommand {
    static let command = Command(
        "posts", abstract: "Import user-submitted posts for review.",
        discussion: """
            Reads a Realtime Database export (Users/{user}/TaggedLocations/{id} or
            Locations/{id}), CSV, or newline-delimited JSON (.ndjson, .jsonl) with
            id,user,lat,lon,description,date,photo. Photos are looked up inside --photos
            (default: the file's folder) and nowhere else. A post's user is the user's id
            (the Users/{uid} key, else a uid/userId-like field); display names (userName,
            displayName, name…), password fields and e-mail addresses are never stored.
            Re-importing is idempotent; a decided post whose content changed goes back to
            pending. A post an earlier import of the same file held and this one does not
            is withdrawn (its user deleted it): it takes no decision and is not exported.
            A record that cannot become a post stops the import with nothing changed
            (exit 3) unless --skip-invalid. Exit 1 when a photo reference was refused for
            leading outside the photos folder, or records were skipped.
            """,
        arguments: [file],
        options: [photos, skipInvalid, rejects, force],
        formats: [.text, .json]
    ) { invocation in
        if invocation[Self.rejects] != nil && !invocation[Self.skipInvalid] {
            throw invocation.usageError("--rejects needs --skip-invalid")
        }
        let file = invocation[Self.file]
        let path = invocation.resolve(file)
        let photos =
            invocation[Self.photos].map(invocation.resolve)
            ?? (path as NSString).deletingLastPathComponent
        guard let resolver = PhotoResolver(folder: photos) else {
            throw InputError(invocation[Self.photos] ?? photos, "no such folder")
        }
        let input: PostFile
        do {
            input = try PostReader.read(
                path: path, name: file, skipInvalid: invocation[Self.skipInvalid])
        } catch let error as InputError {
            invocation.warn("error: \(ReviewFormat.line(error.description))")
            invocation.warn("nothing was imported; fix the record or pass --skip-invalid")
            return .input
        }
        for reject in input.rejects {
            invocation.warn("skipped: \(ReviewFormat.line(reject.description))")
        }
        let workspace = try invocation.openWorkspace()
        let origin = try PostsOrigin.of(file: path, in: workspace)
        if let message = origin.moved.message(for: file) { invocation.warn(message) }
        let summary = try PostImporter(workspace: workspace, photos: resolver).run(
            input, origin: origin.identity, formerOrigin: origin.former)
        if let rejects = invocation[Self.rejects] {
            try AtomicFile.write(
                Data(PostRejects.csv(input.rejects).utf8), to: invocation.resolve(rejects))
        }
        report(summary, file: file, invocation)
        return summary.refusedPhotos.isEmpty && summary.skipped == 0 ? .success : .problems
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
        for (id, from) in summary.withdrawn {
            invocation.note(
                "note: post \(ReviewFormat.line(id)) is no longer in \(file): withdrawn"
                    + (from == .approved ? " (it was approved: the next export leaves it out)" : "")
            )
        }
        for id in summary.returned {
            invocation.note("note: withdrawn post \(ReviewFormat.line(id)) is back: pending again")
        }
        if invocation.format == .json {
            let refused = summary.refusedPhotos.map {
                JSONObject(["id": $0.id, "reason": $0.reason])
            }
            let dropped = JSONObject([
                "passwords": summary.droppedPasswords, "emails": summary.droppedEmails,
                "names": summary.droppedNames,
            ])
            invocation.print(
                JSONObject([
                    "new": summary.new, "updated": summary.updated,
                    "unchanged": summary.unchanged, "reopened": summary.reopened,
                    "refused_photos": refused, "dropped": dropped, "skipped": summary.skipped,
                    "withdrawn": summary.withdrawn.map(\.id), "returned": summary.returned,
                ]).jsonText)
            return
        }
        invocation.note(
            "imported \(summary.imported) posts (\(summary.new) new, \(summary.updated) updated, "
                + "\(summary.unchanged) unchanged) from \(file)"
                + (summary.skipped > 0 ? "; skipped \(summary.skipped) invalid records" : "")
                + (summary.withdrawn.isEmpty ? "" : "; \(summary.withdrawn.count) withdrawn"))
        if summary.droppedNames > 0 {
            invocation.note(
                "dropped \(summary.droppedPasswords) password fields, "
                    + "\(summary.droppedEmails) e-mail addresses and \(summary.droppedNames) "
                    + "display names (never stored)")
        } else if summary.droppedPasswords + summary.droppedEmails > 0 {
            invocation.note(
                "dropped \(summary.droppedPasswords) password fields and "
                    + "\(summary.droppedEmails) e-mail addresses (never stored)")
        }
    }

    // MARK: - Declarations

    static let file = Argument<String>(
        "file", help: "The export, CSV or NDJSON file.", role: .input)
    static let photos = Option<String>(
        "photos", value: "dir", help: "The folder holding the photos.", role: .input)
    static let skipInvalid = Flag(
        "skip-invalid", help: "Import the valid records; report the others and exit 1.")
    static let rejects = Option<String>(
        "rejects", value: "file",
        help: "With --skip-invalid: write the skipped records here (CSV: where, why, "
            + "the record).",
        role: .output(.rejects))
    static let force = Flag(
        "force",
        help: "Replace an existing --rejects file that trove did not write and does not read.",
        replacesOutputs: true)
}

import Foundation
import TroveBase
import TroveCommandLine
import TroveKit
import TroveStore

/// `trove import posts FILE [--photos DIR]` and `trove import posts --from URL`.
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

            --from URL reads the posts from the live database location the app writes
            (https://PROJECT-default-rtdb.firebaseio.com/Locations, or .../Users for
            Users/{uid}/TaggedLocations/{id}; an emulator's
            http://127.0.0.1:PORT/Locations?ns=NAME) in pages, and their photos (Firebase
            download URLs and gs:// URLs) from Cloud Storage through its JSON API, with
            the credentials and endpoint 'publish' uses (gcloud's token,
            CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE). Photos are kept in the folder beside
            the workspace (WORKSPACE.photos/), named by their content, and downloaded
            again only when their object changed. The rules of a file import hold, the URL
            being the source: a post gone from the location is withdrawn once the whole
            location was read. Records that cannot become posts are skipped and reported
            (--rejects FILE writes them). Work is committed in batches: an interrupted
            pull keeps what it finished, and the next one goes on. Exit 1 when a post was
            not imported because its photo could not be downloaded (the others are), or
            records were skipped; 3 when the location could not be read at all.

            A file is imported in batches too: an import that is killed or interrupted
            (Ctrl-C) keeps the posts it stored, withdraws nothing, exits 1, and the same
            command run again goes on without reading again the photos already read.
            """,
        arguments: [file],
        options: [from, photos, skipInvalid, rejects, force],
        formats: [.text, .json]
    ) { invocation in
        if let url = invocation[Self.from] {
            guard invocation[Self.file] == nil else {
                throw invocation.usageError("give a file or --from URL, not both")
            }
            if invocation[Self.photos] != nil {
                throw invocation.usageError(
                    "--photos is for files: --from reads the photos from Cloud Storage")
            }
            return try pull(url, invocation)
        }
        if invocation[Self.rejects] != nil && !invocation[Self.skipInvalid] {
            throw invocation.usageError("--rejects needs --skip-invalid")
        }
        guard let file = invocation[Self.file] else {
            throw invocation.usageError("give the file to import, or --from URL")
        }
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
        let bar = invocation.progress("importing posts", total: input.posts.count)
        let summary = try Interruption.watching {
            try PostImporter(workspace: workspace, photos: resolver).run(
                input, origin: origin.identity, formerOrigin: origin.former,
                isCancelled: { Interruption.received != nil }, progress: { bar.set($0) })
        }
        bar.finish()
        if let rejects = invocation[Self.rejects] {
            try AtomicFile.write(
                Data(PostRejects.csv(input.rejects).utf8), to: invocation.resolve(rejects))
        }
        if summary.interrupted {
            report(summary, file: file, complete: false, invocation)
            invocation.warn(
                "interrupted: the \(summary.imported) posts stored are kept and no post was "
                    + "withdrawn; run the same command again to import the rest")
            return .problems
        }
        report(summary, file: file, invocation)
        return summary.refusedPhotos.isEmpty && summary.skipped == 0 ? .success : .problems
    }

    /// `--from URL`: a pull of the live location.
    static func pull(_ url: String, _ invocation: Invocation) throws -> ExitStatus {
        let location: LiveLocation
        do {
            location = try LiveLocation(url)
        } catch {
            throw invocation.usageError("--from: \(error)")
        }
        let workspace = try invocation.openWorkspace()
        if workspace.isReadOnly { throw WorkspaceError.readOnly(path: workspace.path) }
        let pull: PostPull
        do {
            pull = try PostPull(
                workspace: workspace, location: location, cloud: invocation.context.cloud)
        } catch {
            throw CommandFailure("\(error)", status: .usage)
        }
        let bar = invocation.progress("pulling \(location.name)", total: 0)
        pull.progress = { counts in
            bar.count(counts.read)
        }
        var failure: PullError?
        do {
            try pull.run()
        } catch let error as PullError {
            failure = error
        }
        bar.finish()
        for reject in pull.rejects {
            invocation.warn("skipped: \(ReviewFormat.line(reject.description))")
        }
        for note in pull.notes { invocation.note("note: \(note)") }
        if let rejects = invocation[Self.rejects] {
            try AtomicFile.write(
                Data(PostRejects.csv(pull.rejects).utf8), to: invocation.resolve(rejects))
        }
        if let failure {
            invocation.warn("error: \(ReviewFormat.line(failure.description))")
            guard pull.committed else {
                invocation.warn("nothing was imported")
                return .input
            }
            report(pull.summary, file: location.origin, pulled: true, complete: false, invocation)
            invocation.warn(
                "the pull stopped before the end of \(location.origin): what it read is kept and "
                    + "no post was withdrawn; run it again to go on")
            return .problems
        }
        report(pull.summary, file: location.origin, pulled: true, invocation)
        return pull.summary.refusedPosts.isEmpty && pull.summary.skipped == 0
            ? .success : .problems
    }

    static func report(
        _ summary: PostImportSummary, file: String, pulled: Bool = false, complete: Bool = true,
        _ invocation: Invocation
    ) {
        for (id, reason) in summary.refusedPosts {
            invocation.warn(
                "error: post \(ReviewFormat.line(id)) was not imported: \(ReviewFormat.line(reason))"
            )
        }
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
                    "refused_posts": summary.refusedPosts.map {
                        JSONObject(["id": $0.id, "reason": $0.reason])
                    },
                    "downloaded": JSONObject([
                        "photos": summary.downloadedPhotos, "bytes": summary.downloadedBytes,
                    ]),
                    "complete": complete,
                ]).jsonText)
            return
        }
        invocation.note(
            "\(pulled ? "pulled" : "imported") \(summary.imported) posts (\(summary.new) new, "
                + "\(summary.updated) updated, \(summary.unchanged) unchanged) from \(file)"
                + (summary.skipped > 0 ? "; skipped \(summary.skipped) invalid records" : "")
                + (summary.refusedPosts.isEmpty
                    ? "" : "; \(summary.refusedPosts.count) not imported (photo not downloaded)")
                + (summary.withdrawn.isEmpty ? "" : "; \(summary.withdrawn.count) withdrawn"))
        if pulled {
            invocation.note(
                summary.downloadedPhotos == 0
                    ? "downloaded no photos"
                    : "downloaded \(summary.downloadedPhotos) photos "
                        + "(\(ByteCountFormatter.string(fromByteCount: Int64(summary.downloadedBytes), countStyle: .binary)))"
            )
        }
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
        "file", help: "The export, CSV or NDJSON file.", role: .input
    ).optional
    static let from = Option<String>(
        "from", value: "url",
        help: "Pull the posts from this database location instead (…/Locations or …/Users).")
    static let photos = Option<String>(
        "photos", value: "dir", help: "The folder holding the photos.", role: .input)
    static let skipInvalid = Flag(
        "skip-invalid", help: "Import the valid records; report the others and exit 1.")
    static let rejects = Option<String>(
        "rejects", value: "file",
        help: "With --skip-invalid or --from: write the skipped records here (CSV: where, "
            + "why, the record).",
        role: .output(.rejects))
    static let force = Flag(
        "force",
        help: "Replace an existing --rejects file that trove did not write and does not read.",
        replacesOutputs: true)
}

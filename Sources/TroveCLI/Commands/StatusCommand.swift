import TroveBase
import TroveCommandLine
import TroveKit
import TroveStore

enum StatusCommand {
    static let command = Command(
        "status", abstract: "Show what the workspace holds and what to run next.",
        formats: [.text, .json]
    ) { invocation in
        let workspace = try invocation.openWorkspace()
        let status = try WorkspaceStatus(workspace: workspace)
        if invocation.format == .json {
            var posts = JSONObject()
            for name in ["pending", "approved", "rejected", "flagged"] {
                posts.add(name, status.posts[name, default: 0])
            }
            let images = JSONObject([
                "current": status.imagesCurrent, "stale": status.imagesStale,
            ])
            invocation.print(
                JSONObject([
                    "treasures": status.treasures, "posts": posts, "images": images,
                    "photos": JSONObject([
                        "to_publish": status.photosToPublish, "total": status.photos,
                    ]),
                    "geohash_stale": status.geohashStale, "last_export": status.lastExport,
                    "publish": try publishJSON(workspace),
                ]).jsonText)
            return .success
        }
        if let missing = try MissingBucket.find(
            in: workspace, treasures: status.bucketTreasureImages, posts: status.bucketPostPhotos)
        {
            // First, because every export with image URLs fails until it is set.
            invocation.print("\(missing.message) (\(MissingBucket.hint))")
            invocation.print("")
        }
        invocation.print("workspace: \(invocation.workspacePath)")
        invocation.print("treasures: \(status.treasures)")
        let posts = ["pending", "approved", "rejected", "flagged"].map {
            "\(status.posts[$0, default: 0]) \($0)"
        }
        invocation.print("posts:     \(posts.joined(separator: ", "))")
        invocation.print(
            "images:    \(status.imagesCurrent) current, \(status.imagesStale) need renditions")
        if status.photos > 0 {
            invocation.print(
                "photos:    \(status.photosToPublish) to publish (of approved posts; "
                    + "\(status.photos) \(status.photos == 1 ? "post has" : "posts have") a photo)")
        }
        invocation.print("geohashes: \(status.geohashStale) missing or stale")
        invocation.print("exported:  \(status.lastExport ?? "never")")
        let publish = try publishLines(workspace, invocation)
        invocation.print("")
        // With a publish target, publishing replaces exporting by hand.
        var next = status.nextStep
        if publish.command != nil, next?.hasPrefix("trove export") == true { next = nil }
        if let next = publish.interrupted ?? next ?? publish.unpublished {
            invocation.print("next: \(next)")
        } else if let command = publish.command {
            invocation.print("up to date; after changes: \(command)")
        } else {
            invocation.print("up to date; after changes: \(updateCommand(status, invocation))")
        }
        return .success
    }

    /// The `export --update` that follows the last recorded one, complete so that it runs
    /// as printed: its layout and output file, relative to here when they are below it.
    private static func updateCommand(_ status: WorkspaceStatus, _ invocation: Invocation)
        -> String
    {
        guard let last = status.lastRecordedExport else {
            return "trove export --layout flatirongo --update --out build/firebase.update.json"
        }
        func relative(_ path: String) -> String {
            let here = invocation.resolve(".") + "/"
            return path.hasPrefix(here) ? String(path.dropFirst(here.count)) : path
        }
        var layout = relative(last.layout)
        // A layout file named without a slash would be read as a built-in name.
        if last.layout.hasPrefix("/") && !layout.contains("/") { layout = "./" + layout }
        let words = ["--layout", layout, "--update", "--out", relative(last.out)]
        return "trove export " + words.map(ShellQuoting.word).joined(separator: " ")
    }

    /// The publish targets' lines: when each was last published and what an interrupted
    /// publish has left, from the records alone (what changed since needs the tree
    /// rendered: 'trove publish --dry-run' counts it). Returns the command that completes
    /// an interrupted publish, the one of the default target if it was never published,
    /// and the one that publishes the default target.
    private static func publishLines(_ workspace: Workspace, _ invocation: Invocation) throws
        -> (interrupted: String?, unpublished: String?, command: String?)
    {
        let targets = try PublishTargetStatus.all(in: workspace)
        guard let first = targets.first(where: \.target.isDefault) ?? targets.first else {
            return (nil, nil, nil)
        }
        var interrupted: String?
        for (index, status) in targets.enumerated() {
            let target = status.target
            var line = (index == 0 ? "published: " : "           ") + target.name
            line += target.publishedAt.map { " at \($0)" } ?? " never"
            if let left = status.interrupted {
                line +=
                    "; interrupted, left: \(left.uploads) uploads, \(left.retokens) token updates, "
                    + "\(left.requests) database requests, \(left.deletes) deletions"
                interrupted = interrupted ?? status.command
            } else if target.publishedAt != nil {
                line += "; '\(status.command) --dry-run' counts the changes since"
            }
            invocation.print(line)
        }
        return (interrupted, first.target.publishedAt == nil ? first.command : nil, first.command)
    }

    private static func publishJSON(_ workspace: Workspace) throws -> [JSONObject] {
        try PublishTargetStatus.all(in: workspace).map { status in
            JSONObject([
                "target": status.target.name, "default": status.target.isDefault,
                "published_at": status.target.publishedAt,
                "interrupted": status.interrupted.map(PublishCommand.json),
            ])
        }
    }
}

enum CheckCommand {
    static let command = Command(
        "check", abstract: "Check the workspace's integrity (exit 1 on any problem).",
        formats: [.text, .json]
    ) { invocation in
        let check = try WorkspaceCheck(workspace: invocation.openWorkspace())
        if invocation.format == .json {
            invocation.print(
                JSONObject(["healthy": check.isHealthy, "problems": check.problems]).jsonText)
        } else if check.isHealthy {
            invocation.print("ok")
        } else {
            for problem in check.problems { invocation.print(problem) }
        }
        return check.isHealthy ? .success : .problems
    }
}

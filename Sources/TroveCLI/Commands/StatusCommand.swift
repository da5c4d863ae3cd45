import TroveKit

enum StatusCommand {
    static let command = Command(
        "status", abstract: "Show what the workspace holds and what to run next.",
        formats: [.text, .json]
    ) { invocation in
        let workspace = try invocation.openWorkspace()
        let status = try WorkspaceStatus(workspace: workspace)
        if invocation.format == .json {
            let posts = ["pending", "approved", "rejected", "flagged"].map {
                "\"\($0)\": \(status.posts[$0, default: 0])"
            }.joined(separator: ", ")
            let lastExport = status.lastExport.map(jsonString) ?? "null"
            invocation.print(
                "{\"treasures\": \(status.treasures), \"posts\": {\(posts)}, "
                    + "\"images\": {\"current\": \(status.imagesCurrent), "
                    + "\"stale\": \(status.imagesStale)}, "
                    + "\"geohash_stale\": \(status.geohashStale), \"last_export\": \(lastExport)}")
            return .success
        }
        if let missing = try MissingBucket.find(in: workspace) {
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
        invocation.print("geohashes: \(status.geohashStale) missing or stale")
        invocation.print("exported:  \(status.lastExport ?? "never")")
        invocation.print("")
        if let next = status.nextStep {
            invocation.print("next: \(next)")
        } else {
            invocation.print("up to date; after changes: trove export --update")
        }
        return .success
    }
}

enum CheckCommand {
    static let command = Command(
        "check", abstract: "Check the workspace's integrity (exit 1 on any problem).",
        formats: [.text, .json]
    ) { invocation in
        let check = try IntegrityCheck(workspace: invocation.openWorkspace())
        if invocation.format == .json {
            let problems = check.problems.map(jsonString).joined(separator: ", ")
            invocation.print("{\"healthy\": \(check.isHealthy), \"problems\": [\(problems)]}")
        } else if check.isHealthy {
            invocation.print("ok")
        } else {
            for problem in check.problems { invocation.print(problem) }
        }
        return check.isHealthy ? .success : .problems
    }
}

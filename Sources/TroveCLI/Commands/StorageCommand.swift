import TroveCommandLine
import TroveKit

enum StorageCommand {
    static let command = Command(
        "storage", abstract: "Download tokens of the objects exports put in Firebase Storage.",
        subcommands: [rotate])

    static let rotate = Command(
        "rotate", abstract: "Give chosen objects new download tokens (when a URL leaked).",
        discussion: """
            Every stored object has a random download token, kept in the workspace and
            put in its URL (?alt=media&token=UUID) while storage.tokens is on: one for
            exports without a target, and one per publish target's bucket, so a URL from
            one target's build opens nothing in another's bucket. A rotated object gets new
            ones: where targets exist, the next 'trove publish' of each target whose
            bucket it is in sets the new token beside the old, writes it into the URLs,
            then drops the old, which ends the leaked URL. For exports without a target,
            the next export writes it into the URLs and its storage script's upload step
            sets it. OBJECT is an object path (treasures/hairy-harry/full-3fa2c9e1.png),
            treasure:KEY or post:ID. --all rotates every object that is live: those a
            target holds, and those the last recorded export of each layout referenced.
            --target rotates that target's tokens alone.
            """,
        arguments: [objects], options: [all, target]
    ) { invocation in
        let selectors = invocation[Self.objects]
        let all = invocation[Self.all]
        if selectors.isEmpty && !all {
            throw invocation.usageError("name the objects to rotate, or pass --all")
        }
        let workspace = try invocation.openWorkspace()
        let rotation: StorageTokens.Rotation
        do {
            rotation = try PublishCommand.mapped {
                try StorageTokens.rotate(
                    in: workspace, selectors: selectors, all: all, target: invocation[Self.target])
            }
        } catch let error as StorageTokens.UnknownObjects {
            throw CommandFailure(error.description, status: .usage)
        }
        for path in rotation.rotated { invocation.print(path) }
        let count = rotation.rotated.count
        let rotated = "rotated \(count) token\(count == 1 ? "" : "s")"
        if rotation.targets.isEmpty && !rotation.exports {
            invocation.note("\(rotated): no live object to rotate")
            return .success
        }
        if rotation.targets.isEmpty {
            invocation.note(
                "\(rotated); run trove export, then the storage script's upload step, then the "
                    + "database update")
            return .success
        }
        var next: [String] = rotation.targets.sorted { a, b in
            a.isDefault != b.isDefault ? a.isDefault : a.name < b.name
        }.map(\.publishCommand)
        if rotation.exports {
            next.append(
                "for exports without a target: trove export, then the storage script's upload "
                    + "step, then the database update")
        }
        invocation.note("\(rotated); next: " + next.joined(separator: "; "))
        return .success
    }

    static let objects = Argument<String>("object", help: "Object paths, treasure:KEY or post:ID.")
        .variadic(minimum: 0)
    static let all = Flag("all", help: "Rotate the token of every live object.")
    static let target = Option<String>(
        "target", value: "name", help: "Rotate this publish target's tokens only.")
}

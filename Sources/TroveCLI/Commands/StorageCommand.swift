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
            put in its URL (?alt=media&token=UUID) while storage.tokens is on. A rotated
            object gets a new one: the next export writes it into the URLs, and its storage
            script's upload step sets it as the object's firebaseStorageDownloadTokens,
            which ends the old URL. OBJECT is an object path
            (treasures/hairy-harry/full-3fa2c9e1.png), treasure:KEY or post:ID.
            """,
        arguments: [objects], options: [all]
    ) { invocation in
        let selectors = invocation[Self.objects]
        let all = invocation[Self.all]
        if selectors.isEmpty && !all {
            throw invocation.usageError("name the objects to rotate, or pass --all")
        }
        let workspace = try invocation.openWorkspace()
        let rotation: StorageTokens.Rotation
        do {
            rotation = try StorageTokens.rotate(in: workspace, selectors: selectors, all: all)
        } catch let error as StorageTokens.UnknownObjects {
            throw CommandFailure(error.description, status: .usage)
        }
        for path in rotation.rotated { invocation.print(path) }
        let count = rotation.rotated.count
        invocation.note(
            "rotated \(count) token\(count == 1 ? "" : "s"); run trove export, then the "
                + "storage script's upload step, then the database update")
        return .success
    }

    static let objects = Argument<String>("object", help: "Object paths, treasure:KEY or post:ID.")
        .variadic(minimum: 0)
    static let all = Flag("all", help: "Rotate the token of every object.")
}

import TroveBase
import TroveCommandLine
import TroveKit
import TroveStore

enum PublishTargetCommands {
    static let command = Command(
        "target", abstract: "Add, list and remove publish targets.",
        discussion: """
            A target is a layout and where its tree goes: a Realtime Database (its root
            URL) and a Storage bucket. The first target added is the default one, which
            'trove publish' uses without --target; --default makes another the default.
            """,
        subcommands: [add, list, remove])

    static let add = Command(
        "add", abstract: "Add a publish target.",
        arguments: [newName],
        options: [database, bucket, layout, makeDefault]
    ) { invocation in
        let database = invocation[Self.database]
        let bucket = invocation[Self.bucket]
        let layout = try ExportCommand.loadLayout(
            invocation[Self.layout] ?? "flatirongo", invocation)
        let workspace = try invocation.openWorkspace()
        let target = try PublishCommand.mapped {
            try PublishTargets.add(
                PublishTarget(
                    name: invocation[Self.newName], databaseURL: database,
                    bucket: bucket, layout: layout.name, isDefault: invocation[Self.makeDefault]),
                in: workspace)
        }
        invocation.note(
            "added target \(target.name): layout \(target.layout) to \(target.databaseURL) "
                + "and gs://\(target.bucket)\(target.isDefault ? " (the default)" : "")")
        return .success
    }

    static let list = Command(
        "list", abstract: "List the publish targets.", formats: [.text, .json]
    ) { invocation in
        let targets = try PublishTargets.all(in: invocation.openWorkspace())
        if invocation.format == .json {
            let items = targets.map { target in
                JSONObject([
                    "name": target.name, "database": target.databaseURL,
                    "bucket": target.bucket, "layout": target.layout,
                    "default": target.isDefault, "published_at": target.publishedAt,
                ]).jsonText
            }
            invocation.print(JSONLineWriter.text(items))
            return .success
        }
        for target in targets {
            invocation.print(
                "\(target.isDefault ? "*" : " ") \(target.name)  \(target.layout)  "
                    + "\(target.databaseURL)  gs://\(target.bucket)  "
                    + (target.publishedAt.map { "published \($0)" } ?? "never published"))
        }
        if targets.isEmpty {
            invocation.note(
                "no publish targets; add one with 'trove publish target add NAME --database "
                    + "URL --bucket NAME'")
        }
        return .success
    }

    static let remove = Command(
        "rm", abstract: "Remove a publish target and what is recorded of it.",
        arguments: [name]
    ) { invocation in
        let name = invocation[Self.name]
        let workspace = try invocation.openWorkspace()
        let next = try PublishCommand.mapped { try PublishTargets.remove(name, in: workspace) }
        invocation.note("removed target \(name)")
        if let next { invocation.note("\(next) is the default target now") }
        return .success
    }

    // MARK: - Declarations

    static let newName = Argument<String>("name", help: "The target's name, e.g. prod or staging.")
    static let database = Option<String>(
        "database", value: "url",
        help: "The database's root URL (https://PROJECT-default-rtdb.firebaseio.com)."
    ).required()
    static let bucket = Option<String>(
        "bucket", value: "name", help: "The Storage bucket (gs://NAME or NAME.appspot.com)."
    ).required()
    static let layout = Option<String>(
        "layout", value: "name|path",
        help: "A built-in layout or a layout file (default: flatirongo).")
    static let makeDefault = Flag("default", help: "Make it the default target.")
    static let name = Argument<String>("name", help: "The target's name.")
}

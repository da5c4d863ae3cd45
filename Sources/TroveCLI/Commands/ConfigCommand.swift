import TroveBase
import TroveCommandLine
import TroveStore

enum ConfigCommand {
    static let command = Command(
        "config", abstract: "Read and change settings stored in the workspace.",
        discussion: "Keys: " + Setting.all.map(\.key).joined(separator: ", ") + ".",
        subcommands: [set, get, list, unset])

    static let key = Argument<String>(
        "key", help: "A setting, e.g. storage.bucket.",
        completion: .words(Setting.all.map(\.key)))
    static let value = Argument<String>("value", help: "The new value.", completion: .nothing)

    static let set = Command(
        "set", abstract: "Store a setting.",
        arguments: [key, value]
    ) { invocation in
        let setting = try known(invocation[Self.key], invocation)
        let value = invocation[Self.value]
        if let problem = setting.problem(with: value) {
            throw invocation.usageError("invalid value '\(value)' for \(setting.key): \(problem)")
        }
        let stored = setting.normalized(value)
        try invocation.openWorkspace().setSetting(setting.key, stored)
        if stored != value { invocation.note("stored \(setting.key) as \(stored)") }
        if setting.key == Setting.storageBucket.key, StorageBucket.isCustom(stored) {
            // A project id is a valid bucket name too; its default bucket is not this one.
            invocation.note(
                "note: \(stored) is used as a custom bucket; a Firebase project's default "
                    + "bucket is \(stored).appspot.com or \(stored).firebasestorage.app")
        }
        return .success
    }

    static let get = Command(
        "get", abstract: "Print a setting's value (exit 1 when it is not set).",
        arguments: [key]
    ) { invocation in
        let setting = try known(invocation[Self.key], invocation)
        guard let value = try invocation.openWorkspace().setting(setting.key) else {
            invocation.note("\(setting.key) is not set")
            return .problems
        }
        invocation.print(value)
        return .success
    }

    static let list = Command(
        "list", abstract: "Print every stored setting.", formats: [.text, .json]
    ) { invocation in
        let settings = try invocation.openWorkspace().storedSettings()
        if invocation.format == .json {
            var object = JSONObject()
            for setting in settings { object.add(setting.key, setting.value) }
            invocation.print(object.jsonText)
        } else {
            for setting in settings { invocation.print("\(setting.key)=\(setting.value)") }
        }
        return .success
    }

    static let unset = Command(
        "unset", abstract: "Remove a setting.", arguments: [key]
    ) { invocation in
        let setting = try known(invocation[Self.key], invocation)
        try invocation.openWorkspace().unsetSetting(setting.key)
        return .success
    }

    private static func known(_ key: String, _ invocation: Invocation) throws(UsageError)
        -> Setting
    {
        if let setting = Setting.named(key) { return setting }
        let names = Setting.all.map(\.key)
        throw invocation.usageError(
            "unknown setting '\(key)'" + suggestion(for: key, among: names))
    }
}

import TroveCommandLine

extension TroveCLI {
    /// What `trove man` and docs/commands.md say besides the commands: every environment
    /// variable trove reads (and those the Storage plan script it writes reads), the exit
    /// statuses, related pages.
    static let manual = Manual(
        environment: [
            .init(
                ["TROVE_WORKSPACE"],
                "The workspace file when `-w` is not given (default: ./trove.sqlite)."),
            .init(
                ["TROVE_BUSY_TIMEOUT"],
                "Seconds, from 0 to 86400, a command that writes waits while another holds the "
                    + "workspace (default: 60). Readers never wait."),
            .init(
                ["TROVE_TEMPLATES"],
                "A folder whose files replace the built-in templates (layouts, starter files, "
                    + "review sheet) of the same name."),
            .init(
                ["TROVE_MODERATOR"],
                "The moderator recorded with review decisions when `--as` is not given."),
            .init(["USER"], "The moderator when neither `--as` nor `TROVE_MODERATOR` is set."),
            .init(
                ["COLUMNS", "LINES"],
                "The terminal's size for review output when it cannot be measured "
                    + "(default: 80 by 24)."),
            .init(
                ["TERM", "COLORTERM"],
                "Photo previews are drawn in colour unless `TERM` is unset or dumb; in 24-bit "
                    + "colour when `COLORTERM` is truecolor or 24bit."),
            .init(["NO_COLOR"], "Disables colour output."),
            .init(
                ["DISPLAY", "WAYLAND_DISPLAY", "PATH"],
                "The review queue opens a photo in the system viewer (xdg-open, found on "
                    + "`PATH`) only when a display is set."),
            .init(
                ["GCLOUD"],
                "The gcloud command (default: gcloud): `trove publish` runs "
                    + "`gcloud auth print-access-token` once for a token, and the Storage "
                    + "plan script an export writes (OUT.storage.sh) runs it for every object."),
            .init(
                ["IMAGES"],
                "Read by the Storage plan script, not by trove: the folder of renditions "
                    + "(default: the export's `--images`)."),
            .init(
                ["FIREBASE"],
                "The firebase-tools command `trove publish` applies database updates "
                    + "with (`database:update`). Unset: firebase when it is on the PATH, "
                    + "else the Realtime Database REST API; set but empty: always REST."),
            .init(
                ["CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE", "CLOUDSDK_AUTH_DISABLE_CREDENTIALS"],
                "As for gcloud: another Storage endpoint (an emulator) for `trove publish`, "
                    + "and no access token at all (True)."),
            .init(
                ["TMPDIR"],
                "Where the update file handed to firebase-tools is written (default: /tmp)."),
        ],
        exitStatuses: [
            .init(["0"], "Success."),
            .init(
                ["1"],
                "The command ran but found problems (validation errors, failed images, "
                    + "refused decisions)."),
            .init(["2"], "Usage error: unknown command or flag, bad value."),
            .init(["3"], "An input file could not be read or parsed; nothing was changed."),
            .init(
                ["4"],
                "Workspace problem: missing, locked, corrupt, newer schema, or a stored "
                    + "setting trove cannot read."),
        ],
        seeAlso: ["firebase(1)", "gcloud(1)"],
        introduction: """
            Every trove command and its flags, generated from the same declarations as \
            `trove help CMD`, the `trove(1)` man page and the shell completions. Guides: \
            [the workspace](workspace.md), [outputs](outputs.md), \
            [publishing](publishing.md), [moderation](moderation.md), \
            [architecture](architecture.md).

            Data goes to stdout, messages and progress to stderr; `--format json` (and `csv` \
            for tables) where it makes sense; `-q` for quiet. Every command that opens the \
            workspace takes `-w/--workspace PATH` (else `$TROVE_WORKSPACE`, else \
            `./trove.sqlite`).
            """)
}

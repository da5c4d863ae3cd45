/// What a tool's manual says beyond its commands: the environment it reads, its exit
/// statuses and related pages. The man page and the Markdown reference are both rendered
/// from the command tree and this, so neither is kept by hand.
///
/// Text is plain, with `code` in backquotes: the man page sets it in bold, Markdown keeps
/// it as code.
package struct Manual: Sendable {
    package struct Entry: Sendable {
        /// What the entry is about: variable names, or an exit status.
        package let names: [String]
        package let text: String

        package init(_ names: [String], _ text: String) {
            self.names = names
            self.text = text
        }
    }

    package let environment: [Entry]
    package let exitStatuses: [Entry]
    /// Related manual pages, such as `gcloud(1)`.
    package let seeAlso: [String]
    /// Markdown that opens the reference page, before its commands.
    package let introduction: String

    package init(
        environment: [Entry], exitStatuses: [Entry], seeAlso: [String], introduction: String
    ) {
        self.environment = environment
        self.exitStatuses = exitStatuses
        self.seeAlso = seeAlso
        self.introduction = introduction
    }
}

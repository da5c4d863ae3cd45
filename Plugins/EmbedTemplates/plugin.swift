import Foundation
import PackagePlugin

/// Compiles every file of `Templates/` into TroveKit as `EmbeddedTemplates.swift`, so a
/// binary copied or installed anywhere carries its layouts, starters and review sheet.
///
/// Runs on every build: the files are listed as inputs, so editing, adding or removing
/// one regenerates the source and nothing can drift from the folder.
@main
struct EmbedTemplates: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let templates = context.package.directoryURL.appending(path: "Templates")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedTemplates.swift")
        var inputs: [URL] = []
        if let files = FileManager.default.enumerator(
            at: templates, includingPropertiesForKeys: [.isRegularFileKey])
        {
            for case let file as URL in files
            where (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                inputs.append(file)
            }
        }
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) template files",
                executable: try context.tool(named: "EmbedTemplatesTool").url,
                arguments: [templates.path, output.path],
                inputFiles: inputs.sorted { $0.path < $1.path } + [templates],
                outputFiles: [output])
        ]
    }
}

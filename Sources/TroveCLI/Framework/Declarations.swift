extension Command {
    /// Every option this command accepts: its own, the common ones, and the global ones
    /// the parser takes anywhere on the line.
    func declaredOptions(isRoot: Bool) -> [OptionDeclaration] {
        var all = allOptions(isRoot: isRoot)
        for global in Parser.globalOptions where !all.contains(where: { $0.long == global.long }) {
            all.append(global)
        }
        return all
    }
}

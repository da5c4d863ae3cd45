import TroveBase

/// The front-coded blocks of exports' and publish targets' states, kept once in
/// `state_blocks` and referred to by id: a state that changes a few entries stores the
/// blocks they fall in and refers to the rest. `ExportStore` stores and reads them.
enum StateBlocks {
    /// The path of a block's first entry, which is stored whole.
    static func firstPath(of entries: [UInt8]) -> [UInt8] {
        var reader = FrontCodedReader(block: entries, damaged: ExportError.damagedState)
        guard (try? reader.advance()) != nil, !reader.isAtEnd else { return [] }
        return reader.path
    }
}

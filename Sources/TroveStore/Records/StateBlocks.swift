import TroveBase

/// The front-coded blocks of exports' and publish targets' states, kept once in
/// `state_blocks` and referred to by id: a state that changes a few entries stores the
/// blocks they fall in and refers to the rest. `ExportStore` stores and reads them.
enum StateBlocks {
    /// The path of a block's first entry, which is stored whole.
    static func firstPath(of entries: [UInt8]) -> [UInt8] {
        var reader = FrontCodedReader(block: entries, damaged: StateBlockError())
        guard (try? reader.advance()) != nil, !reader.isAtEnd else { return [] }
        return reader.path
    }
}

/// A state block as a state refers to it: its first path and its id in `state_blocks`.
package struct StateBlockReference {
    package var first: [UInt8]
    package var block: Int64
    package init(first: [UInt8], block: Int64) {
        self.first = first
        self.block = block
    }
}

/// A stored state block that cannot be read.
package struct StateBlockError: Error {}

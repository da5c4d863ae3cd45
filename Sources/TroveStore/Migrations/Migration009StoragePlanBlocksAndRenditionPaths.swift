import TroveSQLite

extension Schema {
    /// The planned objects as front-coded blocks (as `PlannedObjectEncoder` wrote them) instead of a row
    /// per object: a plan of a million objects is recorded in a few hundred rows. The
    /// plans recorded so far are carried over. Renditions get an index in path order, from
    /// which the next plan reads its objects sorted without sorting them.
    static let storagePlanBlocks: @Sendable (Database) throws -> Void = { database in
        try database.execute(
            """
            -- The objects the last export to each output file planned for Storage, with the
            -- token they were planned with, in path order, front-coded in blocks: the next
            -- plan of that file deletes what is gone and re-tokens what was rotated.
            CREATE TABLE storage_plan_blocks (
                output TEXT NOT NULL,     -- the export's --out path
                seq    INTEGER NOT NULL,  -- block order
                data   BLOB NOT NULL,
                PRIMARY KEY (output, seq)
            ) WITHOUT ROWID;
            -- Covers what a plan reads of each rendition (the key is in every index entry).
            CREATE INDEX renditions_path ON renditions (path, name, source);
            """)
        let insert = try database.prepare(
            "INSERT INTO storage_plan_blocks (output, seq, data) VALUES (?, ?, ?)")
        let outputs = try database.query("SELECT DISTINCT output FROM storage_plan") {
            $0.text(0) ?? ""
        }
        let rows = try database.prepare(
            "SELECT path, token FROM storage_plan WHERE output = ? ORDER BY path")
        // Frozen here rather than calling the live encoder: blocks of 2048 objects, each
        // its path front-coded against the one before (shared length, rest length, rest)
        // and its token as length plus one (0 for none) and bytes.
        func varint(_ value: Int, into bytes: inout [UInt8]) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(value & 0x7F) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }
        for output in outputs {
            var seq: Int64 = 0
            var block: [UInt8] = []
            var entries = 0
            var previous: [UInt8] = []
            func flush() throws {
                guard entries > 0 else { return }
                try insert.run([.text(output), .integer(seq), .blob(block)])
                seq += 1
                block = []
                entries = 0
            }
            try rows.bind([.text(output)])
            while let row = try rows.next() {
                let path = row.withUTF8(0) { Array($0) } ?? []
                var shared = 0
                if entries > 0 {
                    while shared < min(previous.count, path.count)
                        && previous[shared] == path[shared]
                    {
                        shared += 1
                    }
                }
                varint(shared, into: &block)
                varint(path.count - shared, into: &block)
                block += path[shared...]
                if let token = row.withUTF8(1, { Array($0) }) {
                    varint(token.count + 1, into: &block)
                    block += token
                } else {
                    varint(0, into: &block)
                }
                previous = path
                entries += 1
                if entries == 2048 { try flush() }
            }
            try flush()
        }
        try database.execute("DROP TABLE storage_plan")
    }
}

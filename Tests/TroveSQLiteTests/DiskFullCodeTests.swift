import CSQLite
import Foundation
import Testing

@testable import TroveSQLite

/// "Disk full" is recognised however little space is left: with a few KB free SQLite's
/// write of the journal or shared memory fails as an I/O error whose errno is ENOSPC.
@Suite struct DiskFullCodeTests {
    @Test func anIOErrorFromENOSPCIsDiskFull() {
        #expect(SQLiteError(code: SQLITE_FULL, message: "database or disk is full").isDiskFull)
        let write = SQLITE_IOERR | (3 << 8)  // SQLITE_IOERR_WRITE
        #expect(SQLiteError(code: write, message: "disk I/O error", systemErrno: ENOSPC).isDiskFull)
        #expect(SQLiteError(code: write, message: "disk I/O error", systemErrno: EDQUOT).isDiskFull)
        #expect(!SQLiteError(code: write, message: "disk I/O error", systemErrno: EIO).isDiskFull)
        #expect(!SQLiteError(code: write, message: "disk I/O error").isDiskFull)
    }
}

import Testing
@testable import TroveSQLite

import Testing
@testable import TroveKit

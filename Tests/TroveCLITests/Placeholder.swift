import Testing
@testable import TroveCLI

import Foundation
import TroveCLI

let status = TroveCLI.run(Array(CommandLine.arguments.dropFirst()), context: .process())
exit(status)

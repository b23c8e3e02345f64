import Foundation
import KeystoneCheckCore

let outcome = CheckCommand.run(arguments: Array(CommandLine.arguments.dropFirst()))
FileHandle.standardOutput.write(Data(outcome.standardOutput.utf8))
FileHandle.standardError.write(Data(outcome.standardError.utf8))
exit(outcome.status)

// manashiki-sync: everything lives in the ManashikiSyncCLI library.
import Foundation
import ManashikiSyncCLI

let code = await CommandLineTool(console: .standard()).run(Array(CommandLine.arguments.dropFirst()))
exit(code.rawValue)

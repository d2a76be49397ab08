// The `manashiki-registry` executable: see `RegistryCommand.usage` or run with --help.
import Foundation
import ManashikiRegistry

exit(RegistryCommand.run(Array(CommandLine.arguments.dropFirst())))

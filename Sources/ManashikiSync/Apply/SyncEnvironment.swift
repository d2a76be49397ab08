import Foundation
import Manashiki
import ManashikiCore

/// Where secrets come from: environment variables, files and commands. Injectable so tests
/// (and apps) control it.
public struct SyncEnvironment: Sendable {
    /// Environment variables.
    public var variables: [String: String]
    /// Reads a file as text.
    public var readFile: @Sendable (URL) throws -> String
    /// Runs a command (argv, no shell) and returns its standard output.
    public var runCommand: @Sendable ([String]) async throws -> String

    /// Creates an environment.
    public init(variables: [String: String],
                readFile: @escaping @Sendable (URL) throws -> String = { try String(contentsOf: $0, encoding: .utf8) },
                runCommand: @escaping @Sendable ([String]) async throws -> String = CommandRunner.run) {
        self.variables = variables
        self.readFile = readFile
        self.runCommand = runCommand
    }

    /// This process's environment, real files and real commands.
    public static var process: SyncEnvironment { SyncEnvironment(variables: ProcessInfo.processInfo.environment) }
}

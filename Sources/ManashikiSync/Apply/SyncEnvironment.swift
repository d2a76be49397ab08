import Foundation

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

    /// `text` less one trailing newline (`\n` or `\r\n`), as secret files and commands print it.
    static func chompingOneNewline(_ text: String) -> String {
        if text.hasSuffix("\r\n") { return String(text.dropLast(2)) }
        if text.hasSuffix("\n") { return String(text.dropLast()) }
        return text
    }
}

/// Runs a command and captures its standard output (macOS and Linux; elsewhere it fails).
public enum CommandRunner {
    /// Runs `argv` (no shell) and returns its standard output.
    /// - Throws: `SyncFailure` (terminal) if it cannot start or exits non-zero.
    @Sendable public static func run(_ argv: [String]) async throws -> String {
        #if os(macOS) || os(Linux)
        guard let executable = argv.first else { throw SyncFailure(kind: .terminal, message: "the session command is empty") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = Array(argv.dropFirst())
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch {
            throw SyncFailure(kind: .terminal, message: "could not run the session command \(executable)")
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SyncFailure(kind: .terminal, message: "the session command \(executable) exited with status \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
        #else
        throw SyncFailure(kind: .terminal, message: "session commands are not supported on this platform; use env, file or mint")
        #endif
    }
}

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

/// Runs a command and captures its standard output (macOS and Linux; elsewhere it fails).
public enum CommandRunner {
    /// How long a session command may run before it is terminated.
    public static let timeout: TimeInterval = 30
    /// The most output read from a session command.
    static let maxOutput = 64 << 10

    /// Runs `argv` (no shell) and returns its standard output. The command runs on its own
    /// thread (never blocking the concurrency pool), is terminated after `timeout` seconds (a
    /// command waiting for a prompt must not hold the store lock forever), and does not inherit
    /// `MANASHIKI_API_KEY`.
    /// - Throws: `SyncFailure` (terminal) if it cannot start, times out or exits non-zero.
    @Sendable public static func run(_ argv: [String]) async throws -> String {
        #if os(macOS) || os(Linux)
        guard let executable = argv.first else { throw SyncFailure(kind: .terminal, message: "the session command is empty") }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            let thread = Thread {
                continuation.resume(with: Result { try runBlocking(executable, Array(argv.dropFirst())) })
            }
            thread.name = "manashiki.session-command"
            thread.start()
        }
        #else
        throw SyncFailure(kind: .terminal, message: "session commands are not supported on this platform; use env, file or mint")
        #endif
    }

    #if os(macOS) || os(Linux)
    private static func runBlocking(_ executable: String, _ arguments: [String]) throws -> String {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["MANASHIKI_API_KEY"] = nil
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw SyncFailure(kind: .terminal, message: "could not run the session command \(executable)")
        }
        let timedOut = Locked(false)
        let watchdog = DispatchWorkItem {
            guard process.isRunning else { return }
            timedOut.withLock { $0 = true }
            process.terminate()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        if timedOut.current {
            throw SyncFailure(kind: .terminal, message: "the session command \(executable) did not finish within \(Int(timeout)) s and was stopped; it must print a token without waiting for input")
        }
        guard process.terminationStatus == 0 else {
            throw SyncFailure(kind: .terminal, message: "the session command \(executable) exited with status \(process.terminationStatus)")
        }
        return String(decoding: data.prefix(maxOutput), as: UTF8.self)
    }
    #endif
}

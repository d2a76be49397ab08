import Foundation
import Manashiki
import ManashikiProcess

/// Runs a session `command` source and captures its standard output. Processes can be started
/// on Linux and macOS only; on iOS, tvOS, watchOS and visionOS a `command` source fails with a
/// terminal error that says which sources work there.
public enum CommandRunner {
    /// How long a session command may run before it is terminated.
    public static let timeout: TimeInterval = 30
    /// The most output read from a session command.
    static let maxOutput = 64 << 10

    /// Runs `argv` (no shell) and returns its standard output. The command runs on its own
    /// thread (never blocking the concurrency pool), is terminated after `timeout` seconds (a
    /// command waiting for a prompt must not hold the store lock forever), and does not inherit
    /// `MANASHIKI_API_KEY`.
    /// - Throws: `SyncFailure` (terminal) if it cannot start, times out, exits non-zero, or
    ///   this platform starts no processes.
    @Sendable public static func run(_ argv: [String]) async throws -> String {
        guard let executable = argv.first else { throw SyncFailure(kind: .terminal, message: "the session command is empty") }
        guard ProcessCapture.isSupported else { throw unsupported() }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            let thread = Thread {
                continuation.resume(with: Result { try runBlocking(executable, Array(argv.dropFirst())) })
            }
            thread.name = "manashiki.session-command"
            thread.start()
        }
    }

    /// The error of a `command` source where no process can be started.
    static func unsupported() -> SyncFailure {
        SyncFailure(kind: .terminal, message: "session commands cannot run on \(ProcessCapture.platformName) (apps cannot start processes there); give the model a session source of env, file or mint instead")
    }

    private static func runBlocking(_ executable: String, _ arguments: [String]) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["MANASHIKI_API_KEY"] = nil
        let output: ProcessCapture.Output
        do {
            output = try ProcessCapture.run(URL(fileURLWithPath: executable), arguments: arguments, environment: environment,
                                            timeout: timeout, maxOutput: maxOutput)
        } catch ProcessCapture.Failure.unsupported {
            throw unsupported()
        } catch {
            throw SyncFailure(kind: .terminal, message: "could not run the session command \(executable)")
        }
        if output.timedOut {
            throw SyncFailure(kind: .terminal, message: "the session command \(executable) did not finish within \(Int(timeout)) s and was stopped; it must print a token without waiting for input")
        }
        guard output.status == 0, !output.signalled else {
            throw SyncFailure(kind: .terminal, message: "the session command \(executable) exited with status \(output.status)")
        }
        return String(decoding: output.stdout, as: UTF8.self)
    }
}

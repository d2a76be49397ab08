import Foundation
import Manashiki
import ManashikiCore
import ManashikiProcess

/// Runs a session `command` source and captures its standard output. Processes can be started
/// on Linux and macOS only; on iOS, tvOS, watchOS and visionOS a `command` source fails with a
/// terminal error that says which sources work there.
@usableFromInline package enum CommandRunner {
    /// How long a session command may run before it is terminated.
    package static let timeout: TimeInterval = 30
    /// The most output read from a session command.
    static let maxOutput = 64 << 10

    /// Runs `argv` (no shell) and returns its standard output. The command runs on its own
    /// thread (never blocking the concurrency pool), is terminated after `timeout` seconds (a
    /// command waiting for a prompt must not hold the store lock forever), and does not inherit
    /// `MANASHIKI_API_KEY`.
    /// - Throws: `CommandFailure` (terminal once wrapped in a `SyncFailure`) if it cannot
    ///   start, times out, exits non-zero, or this platform starts no processes.
    @usableFromInline @Sendable package static func run(_ argv: [String]) async throws -> String {
        guard let executable = argv.first else { throw CommandFailure(executable: "", reason: .empty) }
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
    static func unsupported() -> CommandFailure {
        CommandFailure(executable: "", reason: .unsupported(platform: OperatingSystem.current.name))
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
            throw CommandFailure(executable: executable, reason: .couldNotStart)
        }
        if output.timedOut {
            throw CommandFailure(executable: executable, reason: .timedOut(seconds: Int(timeout)))
        }
        guard output.status == 0, !output.signalled else {
            throw CommandFailure(executable: executable, reason: .exited(status: output.status))
        }
        return String(decoding: output.stdout, as: UTF8.self)
    }
}

import Foundation

/// Why a command (`CommandRunner.run`: a session `command` source, a docker credential
/// helper) gave no output. Its `errorDescription` calls it a session command; a caller that
/// runs it for another purpose words it with `described(as:)`.
public struct CommandFailure: Error, Sendable, Hashable, LocalizedError {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// The command line is empty.
        case empty
        /// This platform starts no processes (`platform` names it).
        case unsupported(platform: String)
        /// The executable could not be started.
        case couldNotStart
        /// It ran longer than the limit (in seconds) and was stopped.
        case timedOut(seconds: Int)
        /// It exited with a status other than 0, or was killed by a signal.
        case exited(status: Int32)
    }

    /// The executable (the first element of the command line; empty for `.empty`).
    public var executable: String
    /// What went wrong.
    public var reason: Reason

    /// Creates a failure.
    public init(executable: String, reason: Reason) {
        self.executable = executable
        self.reason = reason
    }

    /// The failure in words, calling the command `what` ("session command", "command").
    public func described(as what: String) -> String {
        switch reason {
        case .empty:
            return "the \(what) is empty"
        case .unsupported(let platform):
            return "\(what)s cannot run on \(platform) (apps cannot start processes there); give the model a session source of env, file or mint instead"
        case .couldNotStart:
            return "could not run the \(what) \(executable)"
        case .timedOut(let seconds):
            return "the \(what) \(executable) did not finish within \(seconds) s and was stopped; it must print a token without waiting for input"
        case .exited(let status):
            return "the \(what) \(executable) exited with status \(status)"
        }
    }

    /// The failure of a session command, in words.
    public var errorDescription: String? { described(as: "session command") }
}

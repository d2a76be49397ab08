import Foundation

/// A command line that cannot be run; `message` says what is wrong and what to type instead.
/// It never contains an API key, even one typed by mistake.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and what to do.
    public let message: String
    /// The command the help hint points at, if known.
    public let command: Command.CommandName?

    /// Creates an error.
    public init(_ message: String, command: Command.CommandName? = nil) {
        self.message = message
        self.command = command
    }

    /// The message.
    public var description: String { message }
}

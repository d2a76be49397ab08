import Foundation

/// A command line that cannot be run; `message` says what is wrong and what to type instead.
/// It never contains an API key, even one typed by mistake.
package struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and what to do.
    package let message: String
    /// The command the help hint points at, if known.
    package let command: Command.CommandName?

    /// Creates an error.
    package init(_ message: String, command: Command.CommandName? = nil) {
        self.message = message
        self.command = command
    }

    /// The message.
    package var description: String { message }
}

import Foundation

/// A command line that cannot be run: what is wrong and what to type instead, and the command
/// word it was given for, when known (so the help hint names that command's help). The one
/// usage error of the option table, for `manashiki-sync`, `manashiki-registry` and
/// `manashiki-bench`. `manashiki-sync`'s never contains an API key, even one typed by mistake.
package struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and what to do.
    package let message: String
    /// The command word (`sync`, `serve`, …) the help hint points at, if known.
    package let command: String?

    /// Creates an error.
    package init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    /// The message.
    package var description: String { message }
}

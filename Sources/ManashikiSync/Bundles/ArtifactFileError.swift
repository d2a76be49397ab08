import Foundation

/// A bundle, blob, lock file or source that cannot be used: names the file or URL, says what
/// is wrong and what to do.
public struct ArtifactFileError: Error, LocalizedError, Sendable, Hashable, CustomStringConvertible {
    /// The file, directory or URL (credentials never included).
    public var location: String
    /// What is wrong (with a JSON path when it is inside a document).
    public var message: String
    /// What to do.
    public var hint: String
    /// What kind of problem it is, for code that decides by it (never by the message).
    public var cause: Cause

    /// The kinds of problem code tells apart.
    public enum Cause: Sendable, Hashable {
        /// A document written by a newer version (this format version): never overwrite it.
        case newerFormat(Int)
        /// Anything else: unreadable, malformed, of an unknown format, inconsistent.
        case other
    }

    /// Creates an error.
    public init(location: String, message: String, hint: String, cause: Cause = .other) {
        self.location = location
        self.message = message
        self.hint = hint
        self.cause = cause
    }

    /// `<location>: <message> — <hint>`.
    public var description: String { "\(location): \(message) — \(hint)" }
    /// The description.
    public var errorDescription: String? { description }
}

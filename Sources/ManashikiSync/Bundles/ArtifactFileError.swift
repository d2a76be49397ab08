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

    /// Creates an error.
    public init(location: String, message: String, hint: String) {
        self.location = location
        self.message = message
        self.hint = hint
    }

    /// `<location>: <message> — <hint>`.
    public var description: String { "\(location): \(message) — \(hint)" }
    /// The description.
    public var errorDescription: String? { description }
}

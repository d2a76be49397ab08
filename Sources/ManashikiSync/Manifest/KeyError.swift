/// Why no usable API key was found. The message never contains the key.
public struct KeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and what to do.
    public let message: String
    /// The message.
    public var description: String { message }

    /// Wraps a message.
    package init(message: String) { self.message = message }
}

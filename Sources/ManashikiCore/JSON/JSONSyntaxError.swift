import Foundation

/// JSON that `JSONValue.parse(_:)` refuses: where (the JSON path of the problem, and the line and
/// column), and what is wrong.
///
/// `description`: `models[0]: trailing comma before "}" (line 3, column 21)`.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The JSON path of the value being read (`models[0].id`); empty for the document itself.
    public var path: String
    /// What is wrong (`duplicate key "id" (the first is at line 2)`).
    public var message: String
    /// 1-based line of the offending character.
    public var line: Int
    /// 1-based column of the offending character.
    public var column: Int

    /// Creates an error.
    public init(path: String, message: String, line: Int, column: Int) {
        self.path = path
        self.message = message
        self.line = line
        self.column = column
    }

    /// `path: message (line L, column C)`.
    public var description: String { "\(path.isEmpty ? "" : "\(path): ")\(message) (line \(line), column \(column))" }

    /// Same as `description`.
    public var errorDescription: String? { description }
}

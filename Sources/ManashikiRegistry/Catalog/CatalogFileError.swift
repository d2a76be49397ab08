import Foundation

/// A catalog file that cannot be used: which file, where in it, what is wrong and how to fix it.
///
/// ```
/// examples/registry/catalog.json: $.models[2].artifact.generated.size: size must be a non-negative integer, not "1MB".
///   Fix: write the size in bytes, e.g. "size": 1048576
/// ```
public struct CatalogFileError: Error, CustomStringConvertible, LocalizedError, Sendable {
    /// The catalog file.
    public let file: String
    /// The JSON path of the offending value (`$` for the whole document; empty when the file
    /// itself cannot be found or read).
    public let jsonPath: String
    /// What is wrong.
    public let problem: String
    /// How to fix it.
    public let fix: String

    /// Creates an error.
    public init(file: String, jsonPath: String, problem: String, fix: String) {
        self.file = file
        self.jsonPath = jsonPath
        self.problem = problem
        self.fix = fix
    }

    /// The error in one paragraph, for people.
    public var description: String { "\(file): \(jsonPath.isEmpty ? "" : "\(jsonPath): ")\(problem)\n  Fix: \(fix)" }

    /// Same as `description`.
    public var errorDescription: String? { description }
}

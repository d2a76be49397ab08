import Foundation
import Manashiki

/// One problem in a manifest: where, what, and how to fix it.
///
/// `description` reads like
/// `models[3].version: "1.x" is neither a version nor a range; use "1.2.0", "^1.2" or "latest"`.
public struct ManifestProblem: Sendable, Hashable, CustomStringConvertible {
    /// The JSON path of the offending value (`models[3].version`); empty for the whole document.
    public var path: String
    /// What is wrong.
    public var message: String
    /// What to write instead, if there is an obvious fix.
    public var hint: String?

    /// Creates a problem.
    public init(path: String, message: String, hint: String? = nil) {
        self.path = path
        self.message = message
        self.hint = hint
    }

    /// `path: message; hint`.
    public var description: String {
        let head = path.isEmpty ? message : "\(path): \(message)"
        return hint.map { "\(head); \($0)" } ?? head
    }
}

/// A manifest that cannot be used, with every problem found (not just the first).
///
/// ```swift
/// do { _ = try Manifest.load(contentsOf: url) }
/// catch let error as ManifestError { error.problems.forEach { print($0) } }
/// ```
public struct ManifestError: Error, Sendable, Hashable, LocalizedError, CustomStringConvertible {
    /// Every problem, in document order.
    public var problems: [ManifestProblem]
    /// When the problem is `registry.caBundle` (or `--ca-bundle`) alone, the file and what is
    /// wrong with it: a file that was usable when the manifest was loaded and is gone or broken
    /// when a run starts fails that run only (`Manifest.tlsTrust()`).
    public var caBundleFailure: TLSTrust.BundleError?

    /// Creates an error from its problems.
    public init(problems: [ManifestProblem], caBundleFailure: TLSTrust.BundleError? = nil) {
        self.problems = problems
        self.caBundleFailure = caBundleFailure
    }

    /// A multi-line report: one line per problem.
    public var description: String {
        let noun = problems.count == 1 ? "problem" : "problems"
        return (["The manifest has \(problems.count) \(noun):"] + problems.map { "  - \($0)" }).joined(separator: "\n")
    }

    /// Same as `description`.
    public var errorDescription: String? { description }
}

import Foundation
import Testing

/// What a finished child process left: its status and everything it wrote. The one result type
/// of the test harnesses (`RunningChild`, `CLIProcess`), with readers for `manashiki-sync`'s
/// `--json` output.
package struct ChildResult: Sendable {
    /// The exit status, or the signal number when `signalled`.
    package var status: Int32
    /// True when the process died from a signal (`status` is then the signal number).
    package var signalled: Bool
    /// Its standard output, as UTF-8.
    package var stdout: String
    /// Its standard error, as UTF-8.
    package var stderr: String

    /// A result.
    package init(status: Int32, signalled: Bool = false, stdout: String, stderr: String) {
        self.status = status
        self.signalled = signalled
        self.stdout = stdout
        self.stderr = stderr
    }

    /// Standard output followed by standard error.
    package var all: String { stdout + stderr }
    /// The non-empty lines of standard output.
    package var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
    /// The non-empty lines of standard error.
    package var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }

    /// Every stdout line parsed as a JSON object, nil for a line that is not one.
    package var jsonLines: [[String: Any]?] {
        stdoutLines.map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Every stdout line as a JSON object; records an issue for a line that is not one.
    package func jsonLines(sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]] {
        zip(stdoutLines, jsonLines).compactMap { line, object in
            #expect(object != nil, "not a JSON object: \(line)", sourceLocation: sourceLocation)
            return object
        }
    }

    /// The last stdout line when it is the `--json` summary object, else nil.
    package var summary: [String: Any]? {
        jsonLines.last.flatMap { $0 }.flatMap { $0["type"] as? String == "summary" ? $0 : nil }
    }

    /// The last JSON line, which must be the summary (an issue is recorded when it is not).
    package func summary(sourceLocation: SourceLocation = #_sourceLocation) -> [String: Any] {
        let last = jsonLines(sourceLocation: sourceLocation).last ?? [:]
        #expect(last["type"] as? String == "summary", sourceLocation: sourceLocation)
        return last
    }

    /// The summary's entry for model `id`.
    package func summaryModel(_ id: String) -> [String: Any]? {
        (summary?["models"] as? [[String: Any]])?.first { $0["modelId"] as? String == id }
    }
}

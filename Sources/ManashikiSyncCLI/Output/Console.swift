import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything a command writes to and reads from its surroundings: the two output streams,
/// whether stdout is a terminal, the environment, the clock. Injected so tests see all output.
public struct Console: Sendable {
    /// Standard output (results, progress, JSON).
    package let out: RedactingOutput
    /// Standard error (errors and warnings, one line each).
    package let err: RedactingOutput
    /// Whether standard output is a terminal.
    package let outIsTerminal: Bool
    /// The terminal's width in columns.
    package let width: Int
    /// Environment variables.
    package let environment: [String: String]
    /// The current directory (relative `--store` and `--manifest` paths resolve against it).
    package let currentDirectory: URL
    /// Monotonic seconds, for rates, ETAs and throttling.
    package let now: @Sendable () -> Double
    /// Wall-clock time, for timestamps in records.
    package let date: @Sendable () -> Date

    /// Creates a console.
    package init(out: any TextOutput, err: any TextOutput, outIsTerminal: Bool = false, width: Int = 80,
                environment: [String: String] = [:],
                currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true),
                now: @escaping @Sendable () -> Double = Console.monotonicSeconds,
                date: @escaping @Sendable () -> Date = { Date() }) {
        self.out = out as? RedactingOutput ?? RedactingOutput(out)
        self.err = err as? RedactingOutput ?? RedactingOutput(err)
        self.outIsTerminal = outIsTerminal
        self.width = max(40, width)
        self.environment = environment
        self.currentDirectory = currentDirectory
        self.now = now
        self.date = date
    }

    /// The process's real stdout, stderr, environment and clock.
    public static func standard() -> Console {
        let out = FileDescriptorOutput(descriptor: 1)
        var width = Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 80
        if out.isTerminal, let columns = TerminalSize.columns(of: 1) { width = columns }
        return Console(out: out, err: FileDescriptorOutput(descriptor: 2), outIsTerminal: out.isTerminal, width: width,
                       environment: ProcessInfo.processInfo.environment)
    }

    /// Seconds on a monotonic clock.
    @Sendable package static func monotonicSeconds() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }

    /// Whether colours are allowed (`NO_COLOR` unset or empty).
    package var colorAllowed: Bool { (environment["NO_COLOR"] ?? "").isEmpty }

    /// Writes one line to stdout.
    package func line(_ text: String) { out.write(TextSanitizer.oneLine(text) + "\n") }

    /// Writes one `manashiki-sync: error: …` line to stderr (newlines folded, control
    /// characters removed).
    package func error(_ text: String) { err.write("manashiki-sync: error: \(TextSanitizer.oneLine(text))\n") }

    /// Writes one `manashiki-sync: warning: …` line to stderr.
    package func warning(_ text: String) { err.write("manashiki-sync: warning: \(TextSanitizer.oneLine(text))\n") }
}

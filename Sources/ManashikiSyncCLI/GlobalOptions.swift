import Foundation

/// Options every command accepts.
package struct GlobalOptions: Sendable, Equatable {
    /// How the live progress display is chosen.
    package enum ProgressMode: String, Sendable, Equatable, CaseIterable {
        /// A live display when standard output is a terminal, plain lines otherwise.
        case auto
        /// Always the live display (ANSI control sequences).
        case always
        /// Always plain lines.
        case never
    }

    /// How much is printed.
    package enum Verbosity: Int, Sendable, Equatable, Comparable {
        /// Errors only (on stderr).
        case quiet
        /// Progress, results and a summary.
        case normal
        /// Also reasons, retries, warnings in full and where the key came from.
        case verbose

        /// Orders by amount of output.
        package static func < (a: Verbosity, b: Verbosity) -> Bool { a.rawValue < b.rawValue }
    }

    /// The manifest path (default `./manashiki.json`).
    package var manifestPath: String = GlobalOptions.defaultManifestPath
    /// Whether `--manifest` was given explicitly.
    package var manifestGiven: Bool = false
    /// `--store DIR`: overrides the manifest's `store.directory`.
    package var storeDirectory: String?
    /// `--json`: NDJSON events and a summary object on stdout.
    package var json: Bool = false
    /// `--quiet` / `--verbose`.
    package var verbosity: Verbosity = .normal
    /// `--progress auto|always|never`.
    package var progress: ProgressMode = .auto
    /// `--ca-bundle FILE`: overrides the manifest's `registry.caBundle`.
    package var caBundle: String?
    /// `--api-key-file PATH`.
    package var apiKeyFile: String?
    /// `--lock-timeout DURATION`: how long to wait for another run's lock (default 30 s).
    package var lockTimeout: Duration = .seconds(30)

    /// `--lock-file PATH`: the lock file (default `manashiki.lock.json` beside the manifest).
    package var lockFile: String?
    /// `--locked` (plan, sync): install exactly the lock file's artifacts, refuse anything else.
    package var locked: Bool = false
    /// `--owner NAME` (plan, sync): overrides the manifest's `store.owner`.
    package var owner: String?
    /// `--offline` (plan, sync): no request to the registry; plan from the lock, the bundles or the OCI sources' tags.
    package var offline: Bool = false
    /// `--from DIR|URL` (plan, sync, repeatable): sources tried before the manifest's.
    package var from: [String] = []

    /// The default manifest path.
    package static let defaultManifestPath = "manashiki.json"

    /// Options with every default.
    package init() {}
}

import Foundation

/// Something a message tells a person to run, pass or change, named without saying how:
/// the library's messages interpolate a `Remedy`, and `RemedyWording.current` words it — in
/// the `manashiki-sync` command's terms when the command runs (`RemedyWording.commandLine`,
/// in `ManashikiSyncCLI`), in the library's own (`RemedyWording.library`) in an app.
///
/// ```swift
/// let hint = "write the lock again with \(Remedy.lock)"
/// // the command: write the lock again with `manashiki-sync lock`
/// // an app:      write the lock again with `LockResolver.resolve`
/// ```
public enum Remedy: Sendable, Hashable, CustomStringConvertible {
    /// The agent itself (what to upgrade, what wrote a file).
    case agent
    /// Sync the store.
    case sync
    /// Sync the store, or verify it.
    case syncOrVerify
    /// Sync the store to its lock file.
    case syncLocked
    /// Verify the store and repair what is damaged.
    case verifyRepair
    /// Write the lock file again from the manifest and the registry.
    case lock
    /// Export the store's artifacts (to this destination, when the message names one).
    case export(to: String?)
    /// Choose another store directory.
    case storeDirectory
    /// Name the lock file's path.
    case lockFilePath
    /// Name a bundle directory to install from.
    case bundleDirectory
    /// Offline mode (no network request).
    case offline
    /// Export private models too.
    case includePrivate
    /// Export exactly what the lock file pins.
    case selectLock
    /// Allow this many deletions for one run, beyond `store.prune.maxDeletes`.
    case allowDeletes(Int)

    /// The remedy in the words of `RemedyWording.current`.
    public var description: String { RemedyWording.current.text(self) }
}

/// How `Remedy` values read in messages.
public struct RemedyWording: Sendable {
    /// Words a remedy.
    public var text: @Sendable (Remedy) -> String

    /// Creates a wording. `text` must say each remedy in its own words: interpolating the
    /// remedy it is given (its `description`) would ask this wording again, without end.
    public init(_ text: @escaping @Sendable (Remedy) -> String) {
        self.text = text
    }

    /// The wording messages use now: `library` unless a caller (the command line) binds another
    /// with `RemedyWording.$current.withValue(…)` around its work.
    @TaskLocal public static var current = RemedyWording.library

    /// The library's own words: its types and settings, for an app that calls it.
    public static let library = RemedyWording { remedy in
        switch remedy {
        case .agent: return "ManashikiSync"
        case .sync: return "`Reconciler.run`"
        case .syncOrVerify: return "`Reconciler.run` (or `Verifier.verify`)"
        case .syncLocked: return "`Reconciler.run` with the lock file"
        case .verifyRepair: return "`Reconciler.repair`"
        case .lock: return "`LockResolver.resolve`"
        case .export(let destination): return "`BundleExporter.export`" + (destination.map { " (\($0))" } ?? "")
        case .storeDirectory: return "store.directory"
        case .lockFilePath: return "the lock file's path"
        case .bundleDirectory: return "a bundle directory"
        case .offline: return "offline"
        case .includePrivate: return "includePrivate: true"
        case .selectLock: return "`selection: .artifacts`"
        case .allowDeletes: return "Reconciler.Options.forcePrune"
        }
    }
}

import Foundation

/// A parsed command line: what to run and with which options.
package enum Command: Sendable, Equatable {
    /// `plan`: what a sync would do, changing nothing.
    case plan(GlobalOptions)
    /// `sync`: reconcile the store with the manifest.
    case sync(GlobalOptions, SyncOptions)
    /// `verify`: re-hash installed files offline; optionally repair.
    case verify(GlobalOptions, VerifyOptions)
    /// `status`: what is installed and how the last sync went.
    case status(GlobalOptions)
    /// `export DIR`: write verified models into a content-addressed bundle.
    case export(GlobalOptions, ExportOptions)
    /// `lock`: resolve the manifest against the catalog into a lock file; `--check` compares.
    case lock(GlobalOptions, LockOptions)
    /// `ensure ID…`: install these manifest models if missing, evicting if the budget must.
    case ensure(GlobalOptions, [String])
    /// `--help` (for a command when `topic` is set).
    case help(topic: CommandName?)
    /// `--version`.
    case version

    /// The command names.
    package enum CommandName: String, Sendable, Equatable, CaseIterable {
        /// `plan`.
        case plan
        /// `sync`.
        case sync
        /// `verify`.
        case verify
        /// `status`.
        case status
        /// `export`.
        case export
        /// `lock`.
        case lock
        /// `ensure`.
        case ensure
    }
}

/// The options of `sync`.
package struct SyncOptions: Sendable, Equatable {
    /// `--dry-run`: plan and print, apply nothing.
    package var dryRun = false
    /// `--concurrency N`: downloads at once (overrides `store.concurrency`).
    package var concurrency: Int?
    /// `--max-delete N`: the most prunes one run may do (overrides `store.prune.maxDeletes`).
    package var maxDeletes: Int?
    /// `--no-prune`: delete nothing this run.
    package var noPrune = false
    /// `--every DURATION`: loop mode, one sync per interval.
    package var every: Duration?
    /// `--jitter DURATION`: a random extra wait (0…jitter) before each looped run.
    package var jitter: Duration = .zero
    /// `--metrics-file PATH`: a Prometheus textfile written after every run (overrides the
    /// manifest's `metrics.file`).
    package var metricsFile: String?
    /// `--max-rate RATE`: one bandwidth limit for all of the run's downloads, bytes per second
    /// (overrides the manifest's `policies.maxBytesPerSecond`).
    package var maxRate: Int64?

    /// Defaults: apply, manifest's concurrency and prune policy, run once.
    package init() {}
}

/// The options of `verify`.
package struct VerifyOptions: Sendable, Equatable {
    /// `--repair`: re-download what is corrupt or missing.
    package var repair = false

    /// Defaults: report only.
    package init() {}
}

/// The options of `export`.
package struct ExportOptions: Sendable, Equatable {
    /// Which models go into the bundle.
    package enum Selection: String, Sendable, Equatable, CaseIterable {
        /// Every verified model in the store.
        case store
        /// The manifest's models.
        case manifest
        /// Exactly the lock file's artifacts.
        case lock
    }

    /// The bundle directory (created if needed), or `oci://HOST/REPO:TAG`.
    package var directory: String = ""
    /// `--select store|manifest|lock` (default `store`).
    package var selection: Selection = .store
    /// `--include-private`: export private models too.
    package var includePrivate = false
    /// `--chunk-size`: the largest upload request of an `oci://` export.
    package var chunkSize = 16 << 20
    /// `--mount-from`: repositories of the same registry to mount blobs from.
    package var mountFrom: [String] = []
    /// `s3://`: `--endpoint`, `--region`, `--addressing`, `--profile`, `--requester-pays`
    /// (each overriding the manifest's `s3` source of the same bucket and prefix).
    package var s3 = S3ExportOverrides()
    /// `--concurrency`: parts uploaded at once (`s3://`).
    package var concurrency: Int?
    /// Whether `--chunk-size` was given.
    package var chunkSizeGiven = false

    /// `16M`, `512K`, `1G`, `1048576` → bytes (binary units).
    package static func byteCount(_ text: String) -> Int? {
        var digits = text.uppercased()
        var unit = 1
        for (suffix, factor) in [("GIB", 1 << 30), ("MIB", 1 << 20), ("KIB", 1 << 10), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)] where digits.hasSuffix(suffix) {
            digits.removeLast(suffix.count)
            unit = factor
            break
        }
        guard let n = Int(digits), n > 0, n <= Int.max / unit else { return nil }
        return n * unit
    }

    /// Defaults: the whole store.
    package init() {}
}

/// What `export s3://…` takes from the command line over the manifest's source.
package struct S3ExportOverrides: Sendable, Equatable {
    /// `--endpoint URL`.
    package var endpoint: String?
    /// `--region NAME`.
    package var region: String?
    /// `--addressing auto|path|virtual`.
    package var addressing: String?
    /// `--profile NAME`: the credentials of this profile of the shared files.
    package var profile: String?
    /// `--requester-pays`.
    package var requesterPays = false

    /// None.
    package init() {}

    /// Whether any was given.
    package var any: Bool { endpoint != nil || region != nil || addressing != nil || profile != nil || requesterPays }
}

/// The options of `lock`.
package struct LockOptions: Sendable, Equatable {
    /// `--check`: compare the lock with the manifest and the catalog, write nothing.
    package var check = false

    /// Defaults: write the lock.
    package init() {}
}

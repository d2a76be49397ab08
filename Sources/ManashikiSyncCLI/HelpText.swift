import Foundation
import Manashiki

/// The `--help` texts, one per command.
public enum HelpText {
    /// The program's version (the SDK's).
    public static var version: String { "manashiki-sync \(Manashiki.version)" }

    /// The help for `topic`, or the overview.
    public static func text(for topic: Command.CommandName?) -> String {
        switch topic {
        case nil: return overview
        case .plan: return plan
        case .sync: return sync
        case .verify: return verify
        case .status: return status
        }
    }

    static let globalOptions = """
    OPTIONS (every command)
      -m, --manifest PATH      the manifest (default ./manashiki.json)
          --store DIR          the model store, overriding the manifest's store.directory
          --api-key-file PATH  read the API key from PATH (one trailing newline is stripped);
                               otherwise MANASHIKI_API_KEY, otherwise the manifest's
                               registry.apiKey source. There is no --api-key: a key on the
                               command line would show in `ps` and shell history.
          --json               NDJSON events and a final summary object on stdout
                               (schema "manashiki-sync/v1")
      -q, --quiet              print only errors (stderr)
      -v, --verbose            also print reasons, retries and where the key came from
          --progress MODE      auto (live display on a terminal), always, never
          --lock-timeout D     wait up to D for another run's lock (default 30s), then exit 75
      -h, --help               this help
          --version            print the version

    ENVIRONMENT
      MANASHIKI_API_KEY        the API key (never printed)
      NO_COLOR                 no colours in the live display
    """

    static let overview = """
    manashiki-sync — keep a directory of Manashiki models in line with a manifest

    USAGE
      manashiki-sync COMMAND [options]

    COMMANDS
      plan      show what a sync would do; change nothing (exit 0 in sync, 10 changes pending)
      sync      download, replace and prune until the store matches the manifest
      verify    re-hash every installed file offline; --repair re-downloads what is broken
      status    what is installed, versions, sizes, and how the last sync went

    Run `manashiki-sync COMMAND --help` for a command's options.

    \(globalOptions)

    EXIT CODES
      0 success · 1 failure · 2 usage/manifest/key error · 3 partial failure ·
      4 verify found damage · 10 plan: changes pending · 75 store locked by another run ·
      130 interrupted (SIGINT) · 143 terminated (SIGTERM)
    """

    static let plan = """
    manashiki-sync plan — show what a sync would do, changing nothing

    USAGE
      manashiki-sync plan [--manifest PATH] [--store DIR] [--json]

    Contacts the registry (catalog and records) and hashes files that changed on disk, but
    downloads, deletes and records nothing. Exit codes: 0 in sync, 10 changes pending,
    1 a sync could not fully succeed (a model is blocked, or the disk is too small),
    2 usage/manifest/key error, 75 locked.

    \(globalOptions)
    """

    static let sync = """
    manashiki-sync sync — bring the store in line with the manifest

    USAGE
      manashiki-sync sync [--dry-run] [--concurrency N] [--max-delete N] [--no-prune]
                          [--every D [--jitter D]] [--max-rate RATE] [--metrics-file PATH]
                          [options]

    SYNC OPTIONS
      --dry-run           plan and print, apply nothing (exit 0 unless the plan fails)
      --concurrency N     downloads at once (default: the manifest's store.concurrency)
      --max-delete N      refuse to prune more than N files this run (store.prune.maxDeletes)
      --no-prune          delete nothing this run
      --every D           loop: sync now, then every D (e.g. 6h), for hosts without timers
      --jitter D          with --every: wait a random 0…D more before each run (e.g. 10m)
      --max-rate RATE     one limit for all downloads together, e.g. 20M (MiB/s), 512K
                          (the manifest's policies.maxBytesPerSecond)
      --metrics-file PATH after every run, replace PATH atomically with Prometheus metrics
                          (node_exporter textfile collector; the manifest's metrics.file)

    Downloads are verified (SHA-256) and installed atomically; prunes run last and only when
    everything else succeeded. Exit codes: 0 success, 1 failure, 2 usage/manifest/key error,
    3 partial failure, 75 locked, 130/143 interrupted. In loop mode a failed run is reported
    and the loop goes on; a signal between runs exits 0.

    \(globalOptions)
    """

    static let verify = """
    manashiki-sync verify — re-hash every installed file, offline

    USAGE
      manashiki-sync verify [--repair] [--store DIR] [--manifest PATH] [--json]

    Compares each <id>.bin with the SHA-256 and size the last sync recorded, and reports
    corrupt, missing, unreadable and unknown files (and manifest models that are not
    installed). Needs no key and no network. With --repair, corrupt and missing models are
    downloaded again (this needs the key and the registry). Exit codes: 0 healthy, 4 damage
    found (or left after --repair), 2 usage/manifest error, 75 locked.

    \(globalOptions)
    """

    static let status = """
    manashiki-sync status — what is installed and how the last sync went

    USAGE
      manashiki-sync status [--store DIR] [--manifest PATH] [--json]

    Reads the store's state and the last run's record; no network, no hashing (files whose
    size or modification time changed since they were recorded are flagged "modified": run
    `verify`). Exit codes: 0, 2 usage/manifest error.

    \(globalOptions)
    """
}

import Foundation
import Manashiki

/// The `--help` texts, one per command. Option lists come from `CommandLineParser.options`.
package enum HelpText {
    /// Help lines for `names`, from the option table.
    static func options(_ names: [String], labelWidth: Int = 20, shortColumn: Bool = false) -> String {
        CommandLineParser.options.help(names, labelWidth: labelWidth, shortColumn: shortColumn)
    }

    /// The program's version and the commit it was built from (`BuildInfo`).
    package static var version: String { BuildInfo.versionLine }

    /// The help for `topic`, or the overview.
    package static func text(for topic: Command.CommandName?) -> String {
        switch topic {
        case nil: return overview
        case .plan: return plan
        case .sync: return sync
        case .verify: return verify
        case .status: return status
        case .export: return export
        case .lock: return lock
        case .ensure: return ensure
        }
    }

    static let globalOptions = """
    OPTIONS (every command)
    \(options(["--manifest", "--store", "--api-key-file", "--ca-bundle", "--json", "--quiet", "--verbose", "--progress", "--lock-timeout", "--help", "--version"],
              labelWidth: 25, shortColumn: true))

    ENVIRONMENT
      MANASHIKI_API_KEY        the API key (never printed)
      CURL_CA_BUNDLE, SSL_CERT_FILE, SSL_CERT_DIR
                               CAs to trust instead of libcurl's (Linux; as curl
                               reads them; --ca-bundle and registry.caBundle win)
      NO_COLOR                 no colours in the live display
    """

    static let overview = """
    manashiki-sync — keep a directory of Manashiki models in line with a manifest

    USAGE
      manashiki-sync COMMAND [options]

    COMMANDS
      plan      show what a sync would do; change nothing (exit 0 in sync, 10 changes pending)
      sync      download, replace and prune until the store matches the manifest
      ensure    install these manifest models now (on-demand ones too), evicting if the budget must
      verify    re-hash every installed file offline; --repair re-downloads what is broken
      status    what is installed, versions, sizes, and how the last sync went
      export    write verified models into a bundle (a directory), an OCI registry or a bucket
      lock      resolve the manifest into manashiki.lock.json; --check reports drift

    Run `manashiki-sync COMMAND --help` for a command's options.

    \(globalOptions)

    EXIT CODES
      0 success · 1 failure · 2 usage/manifest/key error · 3 partial failure ·
      4 verify found damage · 10 plan: changes pending, lock --check: lock out of date ·
      75 store locked by another run ·
      130 interrupted (SIGINT) · 143 terminated (SIGTERM)
    """

    static let plan = """
    manashiki-sync plan — show what a sync would do, changing nothing

    USAGE
      manashiki-sync plan [--manifest PATH] [--store DIR] [--json]

    Contacts the registry (catalog and records) and hashes files that changed on disk, but
    downloads, deletes and records nothing. Exit codes: 0 in sync, 10 changes pending,
    1 a sync could not fully succeed (a model is blocked, the disk is too small, or this user
    cannot write the store),
    2 usage/manifest/key error, 75 locked.

    \(sourceOptions)

    \(globalOptions)
    """

    static let sync = """
    manashiki-sync sync — bring the store in line with the manifest

    USAGE
      manashiki-sync sync [--dry-run] [--concurrency N] [--max-delete N] [--no-prune]
                          [--every D [--jitter D]] [--max-rate RATE] [--metrics-file PATH]
                          [options]

    SYNC OPTIONS
    \(options(["--dry-run", "--concurrency", "--max-delete", "--no-prune", "--every", "--jitter", "--max-rate", "--metrics-file"]))

    Downloads are verified (SHA-256) and installed atomically; prunes run last and only when
    everything else succeeded. Exit codes: 0 success, 1 failure, 2 usage/manifest/key error,
    3 partial failure, 75 locked, 130/143 interrupted. A model refused by trust (trust.tuf,
    trust.modelSigning) fails like any model (3, or 1 when none was applied); retrying will not
    help. In loop mode a failed run is reported and the loop goes on; a signal between runs
    exits 0.

    \(sourceOptions)

    \(globalOptions)
    """

    static let sourceOptions = """
    SOURCE AND OWNER OPTIONS (plan, sync)
    \(options(["--from", "--locked", "--offline", "--lock-file", "--owner"]))
    """

    static let export = """
    manashiki-sync export — write verified models into a bundle, an OCI registry or a bucket

    USAGE
      manashiki-sync export DIR [--select store|manifest|lock] [--include-private]
                                [--store DIR] [--manifest PATH]
      manashiki-sync export oci://HOST[:PORT]/REPO:TAG [--select …] [--chunk-size BYTES]
                                [--mount-from REPO] [--ca-bundle FILE]
      manashiki-sync export s3://BUCKET/PREFIX/ [--select …] [--endpoint URL] [--region NAME]
                                [--addressing auto|path|virtual] [--profile NAME]
                                [--requester-pays] [--chunk-size BYTES] [--concurrency N]

    Writes DIR/blobs/sha256/<hex> and DIR/index.json (versioned; model id, version, size,
    sha256 and the record facts an offline plan needs). --select store (default) exports every
    model the store recorded, manifest the manifest's models, lock exactly the lock file's
    artifacts. Every blob is hashed while it is copied and checked against the store's record;
    running it again verifies the blobs already there (SHA-256), replaces damaged ones,
    removes what an interrupted export left, and copies only what is missing. Private models
    are left out unless --include-private is given. No network, no key. Serve DIR with any
    file server (nginx) as a mirror, or carry it to machines without a network.
    To oci://: one artifact in an OCI registry: each model a blob of its own SHA-256 (HEAD
    first, mounted from --mount-from repositories, else uploaded in resumable chunks), the
    bundle index as its config, the tag moved last. Credentials from the container tools' auth
    files ($REGISTRY_AUTH_FILE, containers auth.json, ~/.docker/config.json); oci+http:// only
    to this machine. Sync from it with --from oci://HOST/REPO:TAG or an "oci" source.
    To s3://: the same layout as DIR in a bucket (S3 or S3-compatible: MinIO, Ceph RGW,
    SeaweedFS, R2…): blobs/sha256/<hex> (one PUT up to 16 MiB, else a multipart upload of
    --chunk-size parts, --concurrency at a time, aborted if interrupted), each with
    x-amz-meta-sha256, skipped when already there; index.json last. Endpoint, region and
    credentials from the manifest's "s3" source of that bucket and prefix, the options above,
    or the environment as the AWS SDKs read it (AWS_ENDPOINT_URL_S3, AWS_REGION,
    AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, web identity, container
    credentials, IMDSv2). Other URLs (gs://…, a typo) are refused with exit 2.
    Exit codes: 0 exported, 3 some models could not be exported, 1 none could,
    2 usage/manifest/lock error, 75 the store is locked by a running sync or the bundle by
    another export.

    EXPORT OPTIONS
    \(CommandLineParser.options.help([("--select", nil), ("--include-private", nil), ("--lock-file", "the lock file for --select lock"), ("--chunk-size", nil), ("--mount-from", nil), ("--endpoint", nil), ("--region", nil), ("--addressing", nil), ("--profile", nil), ("--requester-pays", nil), ("--concurrency", "s3://: parts uploaded at once (default 4)")], labelWidth: 20))

    \(globalOptions)
    """

    static let lock = """
    manashiki-sync lock — pin the manifest's models to exact artifacts

    USAGE
      manashiki-sync lock [--check] [--lock-file PATH] [--manifest PATH]

    Resolves every manifest model against the registry's catalog (version and digest pins,
    lifecycle policy) and writes manashiki.lock.json beside the manifest: id, version, sha256,
    size and record facts per model. `sync --locked` then installs exactly these artifacts.
    --check writes nothing and compares the lock with the manifest and the catalog.
    Exit codes: lock: 0 written, 1 a model cannot be locked (nothing written) or the registry is
    unreachable, 2 usage/manifest/key error. lock --check: 0 up to date, 10 out of date,
    1 registry unreachable, 2 usage/manifest/key/lock-file error.

    LOCK OPTIONS
    \(options(["--check", "--lock-file"]))

    \(globalOptions)
    """

    static let ensure = """
    manashiki-sync ensure — install the named models now, evicting if the budget must

    USAGE
      manashiki-sync ensure ID… [--manifest PATH] [--store DIR] [--json]

    Installs each named manifest model that is missing (an on-demand model, an optional one
    left out, a required one not synced yet) and records a use of it. When store.budget has no
    room, optional and on-demand models are evicted, least recently used first; never a
    required model, never one a process holds a lease on. Nothing else is downloaded, updated or
    pruned. Exit codes as sync: 0 installed (or already there), 1 nothing could be applied,
    2 usage/manifest/key error or an id the manifest does not list, 3 a model could not be
    installed or the budget cannot make room, 75 locked.

    ENSURE OPTIONS
    \(options(["--from", "--offline", "--owner"]))

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
    found (or left after --repair), 1 nothing to verify (a --store that does not exist, with no
    manifest), 2 usage/manifest error, 75 locked.

    \(globalOptions)
    """

    static let status = """
    manashiki-sync status — what is installed and how the last sync went

    USAGE
      manashiki-sync status [--store DIR] [--manifest PATH] [--json]

    Reads the store's state and the last run's record; no network, no hashing (files whose
    size or modification time changed since they were recorded are flagged "modified": run
    `verify`). With trust.tuf: each signed role's version and expiry as the last sync
    verified them, with a warning when one expires within 12 hours. Exit codes: 0, 2
    usage/manifest error.

    \(globalOptions)
    """
}

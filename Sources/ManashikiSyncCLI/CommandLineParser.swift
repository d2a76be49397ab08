import Foundation
import ManashikiCore
import ManashikiSync

/// Turns `[String]` (without the program name) into a `Command`, or a `UsageError` that says
/// what to type instead. (Not named `ArgumentParser`: that is swift-argument-parser's module.)
///
/// Grammar: `manashiki-sync [options] COMMAND [options]`; options may come before or after the
/// command, as `--name value` or `--name=value`. Every option is declared once in
/// `CommandLineParser.options`, which also writes the help text's option lists. `--api-key` is
/// refused on purpose: a key on a command line is visible to every local user in `ps` and is
/// kept in shell history.
enum CommandLineParser {
    /// What parsing has gathered so far.
    struct State: Sendable {
        var global = GlobalOptions()
        var sync = SyncOptions()
        var verify = VerifyOptions()
        var export = ExportOptions()
        var lock = LockOptions()
        var command: Command.CommandName?
        var positional: [String] = []
        var wantsHelp = false
        var wantsVersion = false
        var quiet = false, verbose = false
        var jitterGiven = false
    }

    typealias Option = CommandLineOption<State>

    /// Options that would put a secret on the command line.
    static let refusedKeyOptions: Set<String> = ["--api-key", "--apikey", "--key", "--token", "--session"]

    /// Every option of `manashiki-sync`, in help order. `commands` lists the commands that
    /// accept an option (empty: all).
    static let options = OptionTable<State>([
        // Every command.
        Option(["-m", "--manifest"], "PATH", help: "the manifest (default ./manashiki.json)") { s, v in
            s.global.manifestPath = v; s.global.manifestGiven = true
        },
        Option(["--store"], "DIR", help: "the model store, overriding the manifest's store.directory") { s, v in s.global.storeDirectory = v },
        Option(["--api-key-file"], "PATH", help: """
            read the API key from PATH (one trailing newline is stripped);
            otherwise MANASHIKI_API_KEY, otherwise the manifest's
            registry.apiKey source. There is no --api-key: a key on the
            command line would show in `ps` and shell history.
            """) { s, v in
            if SecretShape.looksLikeKey(v) {
                throw UsageError("--api-key-file takes the path of a file that contains the key, not the key itself (the value was not shown); write the key to a file readable only by you, e.g. `install -m 600 /dev/null ~/.config/manashiki/key`, then pass --api-key-file ~/.config/manashiki/key")
            }
            s.global.apiKeyFile = v
        },
        Option(["--ca-bundle"], "FILE", help: """
            also trust the CA certificates in this PEM file, for every host
            (the manifest's registry.caBundle; overrides it)
            """) { s, v in
            guard !v.isEmpty else { throw UsageError("--ca-bundle needs the path of a PEM file of CA certificates") }
            s.global.caBundle = v
        },
        Option(["--json"], help: "NDJSON events and a final summary object on stdout\n(schema \"manashiki-sync/v1\")") { s, _ in s.global.json = true },
        Option(["-q", "--quiet"], help: "print only errors (stderr)") { s, _ in s.quiet = true },
        Option(["-v", "--verbose"], help: "also print reasons, retries and where the key came from") { s, _ in s.verbose = true },
        Option(["--progress"], "MODE", help: "auto (live display on a terminal), always, never") { s, v in
            guard let mode = GlobalOptions.ProgressMode(rawValue: v) else {
                throw UsageError("--progress takes auto, always or never, not \(SecretShape.echo(v))")
            }
            s.global.progress = mode
        },
        Option(["--lock-timeout"], "D", help: "wait up to D for another run's lock (default 30s), then exit 75") { s, v in
            s.global.lockTimeout = try duration("--lock-timeout", v)
        },
        Option(["-h", "--help"], help: "this help") { s, _ in s.wantsHelp = true },
        Option(["--version"], help: "print the version") { s, _ in s.wantsVersion = true },
        // sync.
        Option(["--dry-run"], help: "plan and print, apply nothing (exit 0 unless the plan fails)", commands: ["sync"]) { s, _ in s.sync.dryRun = true },
        Option(["--concurrency"], "N", help: "downloads at once (default: the manifest's store.concurrency;\nexport s3://: parts uploaded at once, default 4)", commands: ["sync", "export"]) { s, v in
            let n = try count("--concurrency", v)
            guard n >= 1 else { throw UsageError("--concurrency needs at least 1") }
            s.sync.concurrency = n
            s.export.concurrency = n
        },
        Option(["--max-delete", "--max-deletes"], "N", help: "refuse to prune more than N files this run (store.prune.maxDeletes)",
               commands: ["sync"]) { s, v in s.sync.maxDeletes = try count("--max-delete", v) },
        Option(["--no-prune"], help: "delete nothing this run", commands: ["sync"]) { s, _ in s.sync.noPrune = true },
        Option(["--every"], "D", help: "loop: sync now, then every D (e.g. 6h), for hosts without timers", commands: ["sync"]) { s, v in
            let d = try duration("--every", v)
            guard d >= .seconds(1) else { throw UsageError("--every needs an interval of at least 1s") }
            s.sync.every = d
        },
        Option(["--jitter"], "D", help: "with --every: wait a random 0…D more before each run (e.g. 10m)", commands: ["sync"]) { s, v in
            s.sync.jitter = try duration("--jitter", v); s.jitterGiven = true
        },
        Option(["--max-rate"], "RATE", help: """
            one limit for all downloads together, e.g. 20M (MiB/s), 512K
            (the manifest's policies.maxBytesPerSecond)
            """, commands: ["sync"]) { s, v in
            guard let rate = ByteRateText.parse(v) else {
                throw UsageError("--max-rate needs a rate such as 20M (20 MiB/s), 512K or 1G, at least 1K, not \(SecretShape.echo(v))")
            }
            s.sync.maxRate = rate
        },
        Option(["--metrics-file"], "PATH", help: """
            after every run, replace PATH atomically with Prometheus metrics
            (node_exporter textfile collector; the manifest's metrics.file)
            """, commands: ["sync"]) { s, v in s.sync.metricsFile = v },
        // Sources (plan, sync).
        Option(["--from"], "DIR|URL", help: "try this bundle directory, mirror, oci://HOST/REPO:TAG or\ns3://BUCKET/PREFIX/ first (repeatable; before the manifest's \"sources\")",
               commands: ["sync", "plan", "ensure"]) { s, v in
            guard !v.isEmpty else { throw UsageError("--from needs a bundle directory or a mirror URL") }
            s.global.from.append(v)
        },
        Option(["--owner"], "NAME", help: "claim models for NAME in a shared store (store.owner; default: the\napp's bundle identifier, else `default`); a prune never deletes\nwhat another owner still claims", commands: ["sync", "plan", "ensure"]) { s, v in
            if let problem = StoreOwner.problem(with: v) { throw UsageError("--owner \(problem), not \(SecretShape.echo(v))") }
            s.global.owner = v
        },
        Option(["--locked"], help: "install exactly the lock file's artifacts; refuse anything else", commands: ["sync", "plan"]) { s, _ in
            s.global.locked = true
        },
        Option(["--offline"], help: """
            no request to the registry, no key: plan from the lock file, the
            bundles' indexes or the OCI sources' tags; only bundles and OCI
            registries serve; what cannot be satisfied is reported per model (exit 3)
            """, commands: ["sync", "plan", "ensure"]) { s, _ in s.global.offline = true },
        Option(["--lock-file"], "PATH", help: "the lock file (default manashiki.lock.json beside the manifest)",
               commands: ["lock", "export", "sync", "plan"]) { s, v in s.global.lockFile = v },
        // verify, export, lock.
        Option(["--repair"], help: "re-download what is corrupt or missing", commands: ["verify"]) { s, _ in s.verify.repair = true },
        Option(["--select"], "WHAT", help: "store (default), manifest or lock", commands: ["export"]) { s, v in
            guard let selection = ExportOptions.Selection(rawValue: v) else {
                throw UsageError("--select takes store, manifest or lock, not \(SecretShape.echo(v))")
            }
            s.export.selection = selection
        },
        Option(["--include-private"], help: "export private models too (anyone who can read the bundle gets them)",
               commands: ["export"]) { s, _ in s.export.includePrivate = true },
        Option(["--chunk-size"], "BYTES", help: "oci://: the largest upload request (default 16MiB; K, M, G\nsuffixes; larger blobs go in resumable chunks of this size);\ns3://: the part size of a multipart upload (5M to 4G)",
               commands: ["export"]) { s, v in
            guard let bytes = ExportOptions.byteCount(v), bytes >= 64 << 10, bytes <= 4 << 30 else {
                throw UsageError("--chunk-size takes a size from 64K to 4G (e.g. 16M), not \(SecretShape.echo(v))")
            }
            s.export.chunkSize = bytes
            s.export.chunkSizeGiven = true
        },
        Option(["--mount-from"], "REPO", help: "oci://: mount blobs from this repository of the same registry\ninstead of uploading them (repeatable)", commands: ["export"]) { s, v in
            guard OCIReference.isValidRepository(v) else { throw UsageError("--mount-from takes a repository name (lowercase, e.g. models/base), not \(SecretShape.echo(v))") }
            s.export.mountFrom.append(v)
        },
        Option(["--endpoint"], "URL", help: "s3://: the S3 API endpoint (e.g. https://minio.example:9000;\ndefault: the manifest's s3 source, AWS_ENDPOINT_URL_S3, AWS)", commands: ["export"]) { s, v in
            guard !v.isEmpty else { throw UsageError("--endpoint needs a URL such as https://minio.example:9000") }
            s.export.s3.endpoint = v
        },
        Option(["--region"], "NAME", help: "s3://: the bucket's region (default: the source's, AWS_REGION, the\nprofile's, else us-east-1, corrected from the bucket's answer)", commands: ["export"]) { s, v in
            guard S3Settings.isRegion(v) else { throw UsageError("--region takes a region name such as eu-west-1, not \(SecretShape.echo(v))") }
            s.export.s3.region = v
        },
        Option(["--addressing"], "STYLE", help: "s3://: auto (default: path-style with an endpoint), path or virtual", commands: ["export"]) { s, v in
            guard S3Addressing(rawValue: v) != nil else { throw UsageError("--addressing takes auto, path or virtual, not \(SecretShape.echo(v))") }
            s.export.s3.addressing = v
        },
        Option(["--profile"], "NAME", help: "s3://: use the credentials of this profile of ~/.aws/credentials\nand ~/.aws/config (default: the AWS credential chain)", commands: ["export"]) { s, v in
            guard !v.isEmpty, !v.contains("]") else { throw UsageError("--profile takes a profile name of the AWS shared files") }
            s.export.s3.profile = v
        },
        Option(["--requester-pays"], help: "s3://: send x-amz-request-payer (a Requester Pays bucket)", commands: ["export"]) { s, _ in
            s.export.s3.requesterPays = true
        },
        Option(["--check"], help: "compare, write nothing", commands: ["lock"]) { s, _ in s.lock.check = true },
    ])

    /// Parses `arguments`.
    /// - Throws: `UsageError`.
    static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        var state = State()
        do throws(UsageError) {
            let given = try options.parse(arguments, into: &state,
                refuse: { name in refusedKeyOptions.contains(name) ? refusedKey(name) : nil },
                unknown: { UsageError(unknownOption($0)) },
                positional: positional,
                stop: { $0.wantsVersion })
            if state.wantsVersion { return .version }
            if state.wantsHelp { return .help(topic: state.command) }
            guard let command = state.command else {
                throw UsageError("missing command: use plan, sync, ensure, verify, status, export or lock (e.g. `manashiki-sync plan`)")
            }
            if state.quiet && state.verbose { throw UsageError("--quiet and --verbose cannot be combined") }
            if let wrong = options.scopeError(given, command: command.rawValue) { throw wrong }
            return try assemble(&state, command: command)
        } catch {
            throw UsageError(error.message, command: state.command?.rawValue)
        }
    }

    /// A command word, `help [COMMAND]`, or `export`'s directory.
    static func positional(_ argument: String, _ state: inout State, _ rest: inout ArraySlice<String>) throws(UsageError) {
        if state.command == nil, argument == "help" {
            state.wantsHelp = true
            if let topic = rest.first.flatMap(Command.CommandName.init(rawValue:)) { state.command = topic; rest = rest.dropFirst() }
            return
        }
        if state.command == .export || state.command == .ensure {
            state.positional.append(argument)
            return
        }
        guard state.command == nil else {
            throw UsageError("unexpected argument \(SecretShape.echo(argument)) after the command")
        }
        guard let c = Command.CommandName(rawValue: argument) else {
            throw UsageError("unknown command \(SecretShape.echo(argument)); the commands are plan, sync, ensure, verify, status, export and lock")
        }
        state.command = c
    }

    /// The command, after the checks that involve more than one option.
    static func assemble(_ state: inout State, command: Command.CommandName) throws(UsageError) -> Command {
        state.global.verbosity = state.quiet ? .quiet : state.verbose ? .verbose : .normal
        if command == .export {
            guard state.positional.count == 1 else {
                throw UsageError(state.positional.isEmpty ? "export needs the bundle directory: `manashiki-sync export DIR`"
                                                           : "export takes one bundle directory, not \(state.positional.count) arguments")
            }
            state.export.directory = state.positional[0]
        }
        if command == .ensure && state.positional.isEmpty {
            throw UsageError("ensure needs the ids of the models to install: `manashiki-sync ensure ID…` (ids the manifest lists)")
        }
        let sync = state.sync
        if state.global.offline && sync.every != nil { throw UsageError("--offline cannot be combined with --every") }
        if state.jitterGiven && sync.every == nil { throw UsageError("--jitter only applies with --every") }
        if sync.every != nil && sync.dryRun { throw UsageError("--every cannot be combined with --dry-run") }
        if sync.metricsFile != nil && sync.dryRun {
            throw UsageError("--metrics-file cannot be combined with --dry-run (a dry run is not a run to alert on)")
        }
        switch command {
        case .plan: return .plan(state.global)
        case .sync: return .sync(state.global, sync)
        case .verify: return .verify(state.global, state.verify)
        case .status: return .status(state.global)
        case .export: return .export(state.global, state.export)
        case .lock: return .lock(state.global, state.lock)
        case .ensure: return .ensure(state.global, state.positional)
        }
    }

    /// A whole number (0 or more).
    static func count(_ name: String, _ text: String) throws(UsageError) -> Int {
        guard let n = Int(text), n >= 0 else { throw UsageError("\(name) needs a whole number (0 or more), not \(SecretShape.echo(text))") }
        return n
    }

    /// A duration such as `30s` or `1h30m`.
    static func duration(_ name: String, _ text: String) throws(UsageError) -> Duration {
        guard let d = DurationText.parse(text) else {
            throw UsageError("\(name) needs a duration such as 30s, 10m, 6h or 1h30m, not \(SecretShape.echo(text))")
        }
        return d
    }

    /// "unknown option …", naming the declared option nearest the typo (`--manifst` →
    /// `--manifest`), as git, cargo and rclone do.
    static func unknownOption(_ name: String) -> String {
        let message = "unknown option \(SecretShape.echo(name))"
        guard !SecretShape.looksLikeKey(name) else { return message }
        let word = String(name.drop { $0 == "-" })
        let long = options.options.flatMap(\.names).filter { $0.hasPrefix("--") }
        guard word.count >= 2,
              let nearest = NearestKey.suggestion(for: word, among: long.map { String($0.dropFirst(2)) }) else { return message }
        return message + "; did you mean --\(nearest)?"
    }

    /// The error for `--api-key` and its look-alikes. The value (if any) is never echoed.
    static func refusedKey(_ name: String) -> UsageError {
        UsageError("\(name) is not accepted: a secret on the command line is visible to every user of this machine in `ps` and is saved in shell history. Set the MANASHIKI_API_KEY environment variable, or put the key in a file readable only by you and pass --api-key-file PATH (session tokens come from the manifest's session sources)")
    }
}

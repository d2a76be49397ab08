import Foundation

/// Turns `[String]` (without the program name) into a `Command`, or a `UsageError` that says
/// what to type instead.
///
/// Grammar: `manashiki-sync [options] COMMAND [options]`; options may come before or after the
/// command, as `--name value` or `--name=value`. `--api-key` is refused on purpose: a key on a
/// command line is visible to every local user in `ps` and is kept in shell history.
public enum ArgumentParser {
    /// Options that would put a secret on the command line.
    /// Options that take no value: `--json=false` must not quietly mean `--json`.
    static let switches: Set<String> = ["-h", "--help", "--version", "--json", "-q", "--quiet", "-v", "--verbose",
                                        "--dry-run", "--no-prune", "--repair", "--check", "--locked", "--offline"]
    static let refusedKeyOptions: Set<String> = ["--api-key", "--apikey", "--key", "--token", "--session"]

    /// Parses `arguments`.
    /// - Throws: `UsageError`.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        var global = GlobalOptions()
        var sync = SyncOptions()
        var verify = VerifyOptions()
        var command: Command.CommandName?
        var wantsHelp = false
        var quiet = false, verbose = false
        var jitterGiven = false
        var syncOnly: [String] = []
        var verifyOnly: [String] = []
        var exportOptions = ExportOptions()
        var lockOptions = LockOptions()
        var positional: [String] = []
        var exportOnly: [String] = []
        var lockOnly: [String] = []
        var lockFileGiven = false
        var sourceOptions: [String] = []
        var rest = arguments[...]

        while let argument = rest.popFirst() {
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
                name = String(argument[..<eq])
                inline = String(argument[argument.index(after: eq)...])
            }
            if refusedKeyOptions.contains(name) { throw refusedKey(name) }
            if inline != nil, Self.switches.contains(name) {
                throw UsageError("\(name) takes no value (leave out \"=…\")", command: command)
            }
            func value() throws(UsageError) -> String {
                if let inline { return inline }
                guard let next = rest.first, !next.hasPrefix("--") || next == "-" else {
                    throw UsageError("\(name) needs a value", command: command)
                }
                rest = rest.dropFirst()
                return next
            }
            func count() throws(UsageError) -> Int {
                let text = try value()
                guard let n = Int(text), n >= 0 else {
                    throw UsageError("\(name) needs a whole number (0 or more), not \(SecretShape.echo(text))", command: command)
                }
                return n
            }
            func duration() throws(UsageError) -> Duration {
                let text = try value()
                guard let d = DurationText.parse(text) else {
                    throw UsageError("\(name) needs a duration such as 30s, 10m, 6h or 1h30m, not \(SecretShape.echo(text))", command: command)
                }
                return d
            }
            switch name {
            case "-h", "--help": wantsHelp = true
            case "--version": return .version
            case "--manifest", "-m": global.manifestPath = try value(); global.manifestGiven = true
            case "--store": global.storeDirectory = try value()
            case "--json": global.json = true
            case "-q", "--quiet": quiet = true
            case "-v", "--verbose": verbose = true
            case "--progress":
                let text = try value()
                guard let mode = GlobalOptions.ProgressMode(rawValue: text) else {
                    throw UsageError("--progress takes auto, always or never, not \(SecretShape.echo(text))", command: command)
                }
                global.progress = mode
            case "--api-key-file":
                let path = try value()
                if SecretShape.looksLikeKey(path) {
                    throw UsageError("--api-key-file takes the path of a file that contains the key, not the key itself (the value was not shown); write the key to a file readable only by you, e.g. `install -m 600 /dev/null ~/.config/manashiki/key`, then pass --api-key-file ~/.config/manashiki/key", command: command)
                }
                global.apiKeyFile = path
            case "--lock-timeout": global.lockTimeout = try duration()
            case "--dry-run": sync.dryRun = true; syncOnly.append(name)
            case "--concurrency":
                let n = try count()
                guard n >= 1 else { throw UsageError("--concurrency needs at least 1", command: command) }
                sync.concurrency = n; syncOnly.append(name)
            case "--max-delete", "--max-deletes": sync.maxDeletes = try count(); syncOnly.append(name)
            case "--no-prune": sync.noPrune = true; syncOnly.append(name)
            case "--every":
                let d = try duration()
                guard d >= .seconds(1) else { throw UsageError("--every needs an interval of at least 1s", command: command) }
                sync.every = d; syncOnly.append(name)
            case "--jitter": sync.jitter = try duration(); jitterGiven = true; syncOnly.append(name)
            case "--metrics-file": sync.metricsFile = try value(); syncOnly.append(name)
            case "--max-rate":
                let text = try value()
                guard let rate = ByteRateText.parse(text) else {
                    throw UsageError("--max-rate needs a rate such as 20M (20 MiB/s), 512K or 1G, at least 1K, not \(SecretShape.echo(text))", command: command)
                }
                sync.maxRate = rate; syncOnly.append(name)
            case "--repair": verify.repair = true; verifyOnly.append(name)
            case "--select":
                let text = try value()
                guard let selection = ExportOptions.Selection(rawValue: text) else {
                    throw UsageError("--select takes store, manifest or lock, not \(SecretShape.echo(text))", command: command)
                }
                exportOptions.selection = selection; exportOnly.append(name)
            case "--check": lockOptions.check = true; lockOnly.append(name)
            case "--lock-file": global.lockFile = try value(); lockFileGiven = true
            case "--locked": global.locked = true; sourceOptions.append(name)
            case "--offline": global.offline = true; sourceOptions.append(name)
            case "--from":
                let text = try value()
                guard !text.isEmpty else { throw UsageError("--from needs a bundle directory or a mirror URL", command: command) }
                global.from.append(text); sourceOptions.append(name)
            default:
                if argument.hasPrefix("-") && argument != "-" {
                    throw UsageError("unknown option \(SecretShape.echo(name))", command: command)
                }
                if command == nil, argument == "help" {
                    wantsHelp = true
                    if let topic = rest.first.flatMap(Command.CommandName.init(rawValue:)) { command = topic; rest = rest.dropFirst() }
                    continue
                }
                if command == .export {
                    positional.append(argument)
                    continue
                }
                guard command == nil else {
                    throw UsageError("unexpected argument \(SecretShape.echo(argument)) after the command", command: command)
                }
                guard let c = Command.CommandName(rawValue: argument) else {
                    throw UsageError("unknown command \(SecretShape.echo(argument)); the commands are plan, sync, verify, status, export and lock")
                }
                command = c
            }
        }
        if wantsHelp { return .help(topic: command) }
        guard let command else {
            throw UsageError("missing command: use plan, sync, verify, status, export or lock (e.g. `manashiki-sync plan`)")
        }
        if quiet && verbose { throw UsageError("--quiet and --verbose cannot be combined", command: command) }
        global.verbosity = quiet ? .quiet : verbose ? .verbose : .normal
        if command != .sync, let flag = syncOnly.first {
            throw UsageError("\(flag) is an option of `sync`, not of `\(command.rawValue)`", command: command)
        }
        if command != .verify, let flag = verifyOnly.first {
            throw UsageError("\(flag) is an option of `verify`, not of `\(command.rawValue)`", command: command)
        }
        if command != .export, let flag = exportOnly.first {
            throw UsageError("\(flag) is an option of `export`, not of `\(command.rawValue)`", command: command)
        }
        if command != .lock, let flag = lockOnly.first {
            throw UsageError("\(flag) is an option of `lock`, not of `\(command.rawValue)`", command: command)
        }
        if command != .sync && command != .plan, let flag = sourceOptions.first {
            throw UsageError("\(flag) is an option of `sync` and `plan`, not of `\(command.rawValue)`", command: command)
        }
        if lockFileGiven && [.verify, .status].contains(command) {
            throw UsageError("--lock-file is an option of `lock`, `export`, `sync` and `plan`, not of `\(command.rawValue)`", command: command)
        }
        if command == .export {
            guard positional.count == 1 else {
                throw UsageError(positional.isEmpty ? "export needs the bundle directory: `manashiki-sync export DIR`"
                                                    : "export takes one bundle directory, not \(positional.count) arguments", command: command)
            }
            exportOptions.directory = positional[0]
        }
        if global.offline && sync.every != nil { throw UsageError("--offline cannot be combined with --every", command: command) }
        if jitterGiven && sync.every == nil { throw UsageError("--jitter only applies with --every", command: command) }
        if sync.every != nil && sync.dryRun { throw UsageError("--every cannot be combined with --dry-run", command: command) }
        if sync.metricsFile != nil && sync.dryRun {
            throw UsageError("--metrics-file cannot be combined with --dry-run (a dry run is not a run to alert on)", command: command)
        }
        switch command {
        case .plan: return .plan(global)
        case .sync: return .sync(global, sync)
        case .verify: return .verify(global, verify)
        case .status: return .status(global)
        case .export: return .export(global, exportOptions)
        case .lock: return .lock(global, lockOptions)
        }
    }

    /// The error for `--api-key` and its look-alikes. The value (if any) is never echoed.
    static func refusedKey(_ name: String) -> UsageError {
        UsageError("\(name) is not accepted: a secret on the command line is visible to every user of this machine in `ps` and is saved in shell history. Set the MANASHIKI_API_KEY environment variable, or put the key in a file readable only by you and pass --api-key-file PATH (session tokens come from the manifest's session sources)")
    }
}

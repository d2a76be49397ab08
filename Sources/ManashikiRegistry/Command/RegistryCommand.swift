import Foundation
import Dispatch
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `manashiki-registry` command line: `serve`, `check`, `generate`, `--help`.
///
/// ```
/// manashiki-registry serve examples/registry --port 0 --ready-file /tmp/registry.json
/// manashiki-registry serve                      # the built-in demo catalog on :8080 and :8081
/// ```
public enum RegistryCommand {
    /// The usage text.
    public static let usage = """
    manashiki-registry — a local Manashiki registry (API + CDN stand-in) for tests and offline work

    USAGE
      manashiki-registry serve [DIR] [options]   serve DIR/catalog.json; without DIR, the built-in demo
                                                 catalog (the same as this package's examples/registry)
      manashiki-registry check [DIR]             validate DIR/catalog.json and exit
      manashiki-registry generate --size N --seed S --output FILE
                                                 write a generated artifact, print its SHA-256
      manashiki-registry --help

    SERVE OPTIONS
    \(options.help(options.options.filter { $0.commands == ["serve"] }.map { $0.names[0] }, labelWidth: 21))

    On start it prints the URLs and one machine-readable line:
      MANASHIKI_REGISTRY_READY {"apiBaseURL":"http://127.0.0.1:8080","storageBaseURL":"http://127.0.0.1:8081"}
    Stop it with Ctrl-C (SIGINT) or SIGTERM.
    """

    /// A parsed command line.
    enum Invocation: Equatable {
        case help
        /// `directory` nil: the built-in demo catalog.
        case serve(directory: String?, configuration: ServeOptions)
        case check(directory: String?)
        case generate(size: Int, seed: UInt64, output: String)
    }

    /// The options of `serve`.
    struct ServeOptions: Equatable {
        var host = "127.0.0.1"
        var port: UInt16 = 8080
        var storagePort: UInt16?
        var allowRemote = false
        var advertiseHost: String?
        var urlTTL = 300
        var uploadURLTTL = 900
        var adminToken: String?
        var cacheDirectory: String?
        var readyFile: String?
        var tufDirectory: String?
    }

    /// Runs the command line `arguments` (without the program name) and returns the exit
    /// status. `serve` blocks until SIGINT or SIGTERM.
    public static func run(_ arguments: [String]) -> Int32 {
        let invocation: Invocation
        do {
            invocation = try parse(arguments)
        } catch {
            printError("manashiki-registry: \(error.message)\nRun `manashiki-registry --help` for usage.")
            return 64
        }
        switch invocation {
        case .help:
            print(usage)
            return 0
        case .check(let directory):
            do {
                let catalog = try load(directory)
                print("\(directory ?? RegistryCatalog.demoName): OK (\(catalog.models.count) models, \(catalog.keys.count) keys, \(catalog.pending.count) pending, \(catalog.faults.count) faults)")
                return 0
            } catch {
                printError("manashiki-registry: \(error)")
                return 65
            }
        case .generate(let size, let seed, let output):
            do {
                let digest = try GeneratedBytes.write(size: size, seed: seed, to: URL(fileURLWithPath: output))
                print("\(digest)  \(output)  (\(size) bytes)")
                return 0
            } catch {
                printError("manashiki-registry: cannot write \(output): \(error.localizedDescription)")
                return 73
            }
        case .serve(let directory, let options):
            return serve(directory: directory, options: options)
        }
    }

    /// What parsing has gathered so far.
    struct ParseState: Sendable {
        var command = ""
        var directory: String?
        var serve = ServeOptions()
        var size: Int?, seed: UInt64?, output: String?
    }

    typealias Option = CommandLineOption<ParseState>

    /// Every option, declared once: parsing and the usage text's SERVE OPTIONS read it.
    static let options = OptionTable<ParseState>([
        Option(["--port"], "N", help: "API port (default 8080; 0 picks a free port)", commands: ["serve"]) { s, v in
            s.serve.port = try integer("--port", v)
        },
        Option(["--storage-port"], "M", help: "storage (CDN stand-in) port (default N+1, or 0 when N is 0)", commands: ["serve"]) { s, v in
            s.serve.storagePort = try integer("--storage-port", v)
        },
        Option(["--host"], "ADDR", help: "IPv4 address to bind (default 127.0.0.1)", commands: ["serve"]) { s, v in s.serve.host = v },
        Option(["--allow-remote"], help: "allow a non-loopback --host", commands: ["serve"]) { s, _ in s.serve.allowRemote = true },
        Option(["--advertise-host"], "H", help: "host name used in printed and signed URLs (default: --host)", commands: ["serve"]) { s, v in
            s.serve.advertiseHost = v
        },
        Option(["--url-ttl"], "S", help: "lifetime of signed download URLs in seconds (default 300)", commands: ["serve"]) { s, v in
            s.serve.urlTTL = try integer("--url-ttl", v)
        },
        Option(["--upload-url-ttl"], "S", help: "lifetime of upload URLs in seconds (default 900)", commands: ["serve"]) { s, v in
            s.serve.uploadURLTTL = try integer("--upload-url-ttl", v)
        },
        Option(["--admin-token"], "T", help: "require X-Admin-Token: T on /_admin/* (default: loopback only)", commands: ["serve"]) { s, v in
            s.serve.adminToken = v
        },
        Option(["--cache-dir"], "DIR", help: "where generated artifacts are cached (default $TMPDIR/manashiki-registry-cache)",
               commands: ["serve"]) { s, v in s.serve.cacheDirectory = v },
        Option(["--ready-file"], "PATH", help: "once listening, write {\"apiBaseURL\": …, \"storageBaseURL\": …, \"pid\": …} to PATH",
               commands: ["serve"]) { s, v in s.serve.readyFile = v },
        Option(["--tuf"], "DIR", help: "serve signed TUF metadata at /tuf/metadata/ with the keys in DIR (generated when absent); DIR/root.json is the root to pin",
               commands: ["serve"]) { s, v in s.serve.tufDirectory = v },
        Option(["--size"], "N", help: "the artifact's size in bytes", commands: ["generate"]) { s, v in s.size = try integer("--size", v) },
        Option(["--seed"], "S", help: "the generator's seed", commands: ["generate"]) { s, v in s.seed = try integer("--seed", v) },
        Option(["-o", "--output"], "FILE", help: "where to write it", commands: ["generate"]) { s, v in s.output = v },
    ])

    /// A non-negative integer of type `T`.
    static func integer<T: FixedWidthInteger>(_ flag: String, _ text: String) throws(UsageError) -> T {
        guard let n = T(text), n >= 0 else { throw UsageError("\(flag) needs a non-negative integer, not \"\(text)\"") }
        return n
    }

    /// Parses a command line (without the program name).
    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        guard let command = arguments.first else { throw UsageError("missing command (serve, check or generate)") }
        if arguments.contains("--help") || arguments.contains("-h") || command == "help" { return .help }
        guard ["serve", "check", "generate"].contains(command) else { throw UsageError("unknown command \"\(command)\"") }
        var state = ParseState()
        state.command = command
        do throws(UsageError) {
            let given = try options.parse(Array(arguments.dropFirst()), into: &state,
                unknown: { UsageError("unknown option \"\($0)\"") },
                positional: { argument, state, _ throws(UsageError) in
                    guard state.command != "generate", state.directory == nil else { throw UsageError("unexpected argument \"\(argument)\"") }
                    state.directory = argument
                })
            if let wrong = options.scopeError(given, command: command) { throw wrong }
        } catch {
            throw UsageError(error.message)
        }
        switch command {
        case "generate":
            guard let size = state.size, let seed = state.seed, let output = state.output else {
                throw UsageError("generate needs --size, --seed and --output")
            }
            return .generate(size: size, seed: seed, output: output)
        default:
            let directory = state.directory
            if command == "check" { return .check(directory: directory) }
            let o = state.serve
            if !o.allowRemote, !LoopbackHost.matches(o.host) {
                throw UsageError("--host \(o.host) is not a loopback address; add --allow-remote to expose the registry to the network")
            }
            return .serve(directory: directory, configuration: o)
        }
    }

    /// The registry configuration `options` describe.
    static func configuration(_ o: ServeOptions) -> RegistryConfiguration {
        var configuration = RegistryConfiguration(host: o.host, apiPort: o.port, storagePort: o.storagePort ?? (o.port == 0 ? 0 : o.port &+ 1),
                                                  advertisedHost: o.advertiseHost, allowRemote: o.allowRemote, urlTTL: o.urlTTL,
                                                  uploadURLTTL: o.uploadURLTTL, adminToken: o.adminToken,
                                                  cacheDirectory: o.cacheDirectory.map { URL(fileURLWithPath: $0) })
        configuration.tufDirectory = o.tufDirectory.map { URL(fileURLWithPath: $0) }
        return configuration
    }

    /// `\n  TUF:     <api>/tuf/metadata/ (pin DIR/root.json)` with `--tuf`, else nothing.
    private static func tufLine(_ registry: DevelopmentRegistry, _ options: ServeOptions) -> String {
        guard let directory = options.tufDirectory else { return "" }
        let root = URL(fileURLWithPath: directory).appendingPathComponent("root.json").standardizedFileURL.path
        return "\n  TUF:     \(registry.apiBaseURL.absoluteString)/tuf/metadata/ (pin \(root) in trust.tuf.root)"
    }

    /// The catalog in `directory`, or the built-in demo catalog when nil.
    static func load(_ directory: String?) throws -> RegistryCatalog {
        guard let directory else { return .demo }
        return try RegistryCatalog.load(directory: URL(fileURLWithPath: directory))
    }

    private static func serve(directory: String?, options: ServeOptions) -> Int32 {
        let catalog: RegistryCatalog
        do {
            catalog = try load(directory)
        } catch {
            printError("manashiki-registry: \(error)")
            return 65
        }
        let registry: DevelopmentRegistry
        do {
            registry = try DevelopmentRegistry.start(catalog: catalog, configuration: configuration(options))
        } catch {
            printError("manashiki-registry: cannot start: \(error)")
            return 69
        }
        // Signals are handled before readiness is announced: a harness may send SIGTERM as soon
        // as it sees the ready line, and the ready file must still be removed then.
        // A second signal does not exit at once: the ready file must be removed on the way out.
        let done = DispatchSemaphore(value: 0)
        let trap = SignalTrap(exitsOnRepeat: false) { _ in done.signal() }
        let api = registry.apiBaseURL.absoluteString, storage = registry.storageBaseURL.absoluteString
        let ready = String(decoding: JSONBody.encode(["apiBaseURL": api, "storageBaseURL": storage, "pid": Int(getpid())]), as: UTF8.self)
        print("""
        manashiki-registry: serving \(directory ?? RegistryCatalog.demoName) (\(catalog.models.count) models, \(catalog.keys.count) keys)
          API:     \(api)
          storage: \(storage)
          admin:   \(api)/_admin/faults (\(options.adminToken == nil ? "loopback only" : "X-Admin-Token required"))\(tufLine(registry, options))
        MANASHIKI_REGISTRY_READY \(ready)
        """)
        fflush(nil)
        if let path = options.readyFile {
            let temporary = path + ".tmp-\(getpid())"
            do {
                try Data(ready.utf8).write(to: URL(fileURLWithPath: temporary))
                guard rename(temporary, path) == 0 else { throw SocketError(operation: "rename(\(path))", code: errno) }
            } catch {
                printError("manashiki-registry: cannot write the ready file \(path): \(error)")
                registry.stop()
                return 73
            }
        }
        done.wait()
        print("manashiki-registry: stopping")
        registry.stop()
        if let path = options.readyFile { unlink(path) }
        trap.cancel()
        return 0
    }

    private static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

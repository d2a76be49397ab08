import Foundation
import Manashiki
import ManashikiCore

/// `manashiki-sync tuf-conformance-client` (hidden, not in `--help`): the client protocol of the
/// TUF conformance suite (`tuf-conformance`'s CLIENT-CLI.md), so the suite drives this
/// package's TUF client (`TUFUpdater`) as it drives python-tuf's. `.ci/tuf-client` runs it.
///
/// ```text
/// tuf-conformance-client --metadata-dir DIR init ROOT
/// tuf-conformance-client --metadata-dir DIR --metadata-url URL refresh
/// tuf-conformance-client --metadata-dir DIR --metadata-url URL --target-name PATH… \
///     --target-base-url URL --target-dir DIR download
/// ```
/// Exit 0 when the command fully succeeded, 1 otherwise (the protocol's two codes), with the
/// reason on standard error.
package struct TUFConformanceClient: Sendable {
    /// The hidden subcommand's name.
    package static let commandName = "tuf-conformance-client"

    let console: Console

    /// The parsed options.
    struct Options {
        var metadataDir: String?
        var metadataURL: String?
        var targetNames: [String] = []
        var targetBaseURL: String?
        var targetDir: String?
        var command: String?
        var trustedRoot: String?
    }

    /// Runs `arguments` (after the subcommand's name): `.success` or `.failure`.
    package func run(_ arguments: [String]) async -> ExitCode {
        do {
            let options = try Self.parse(arguments)
            try await execute(options)
            return .success
        } catch {
            console.error(error.localizedDescription)
            return .failure
        }
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            func value() throws -> String {
                guard let v = rest.popFirst() else { throw UsageError("\(argument) needs a value") }
                return v
            }
            switch argument {
            case "--metadata-dir": options.metadataDir = try value()
            case "--metadata-url": options.metadataURL = try value()
            case "--target-name": options.targetNames.append(try value())
            case "--target-base-url": options.targetBaseURL = try value()
            case "--target-dir": options.targetDir = try value()
            case "-v", "--verbose": break
            case "init", "refresh", "download":
                options.command = argument
                if argument == "init" { options.trustedRoot = try value() }
            default: throw UsageError("unknown argument \(argument)")
            }
        }
        return options
    }

    private func execute(_ options: Options) async throws {
        guard let metadataDir = options.metadataDir else { throw UsageError("--metadata-dir is required") }
        let store = TUFMetadataStore(directory: URL(fileURLWithPath: metadataDir))
        switch options.command {
        case "init":
            let root = try Data(contentsOf: URL(fileURLWithPath: options.trustedRoot ?? ""))
            try store.write("root", root)
        case "refresh":
            try await updater(options, store: store).refresh()
        case "download":
            try await download(options, updater: updater(options, store: store))
        default:
            throw UsageError("give one of init, refresh, download")
        }
    }

    private func updater(_ options: Options, store: TUFMetadataStore) throws -> TUFUpdater {
        guard let text = options.metadataURL, let url = URL(string: text) else { throw UsageError("--metadata-url is required") }
        return TUFUpdater(anchor: nil, store: store, source: TUFHTTPSource(baseURL: url), now: Date())
    }

    private func download(_ options: Options, updater: TUFUpdater) async throws {
        guard let baseText = options.targetBaseURL, let base = URL(string: baseText), let targetDir = options.targetDir else {
            throw UsageError("--target-base-url and --target-dir are required")
        }
        let directory = URL(fileURLWithPath: targetDir)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let transport = DefaultTransport()
        for name in options.targetNames {
            let target = try await updater.target(name)
            // The file is named after the percent-encoded target path, as python-tuf names it.
            let file = directory.appendingPathComponent(String(TUFMetadataStore.fileName(of: name).dropLast(".json".count)))
            if let cached = try? Data(contentsOf: file), (try? target.verify(Array(cached))) != nil { continue }
            let bytes = try await updater.download(target, from: base, transport: transport)
            try DurableFile.replace(file, with: Data(bytes))
        }
    }
}

import Foundation
import ManashikiProcess
import ManashikiTestSupport
import Manashiki
import Testing
import ManashikiRegistry
import ManashikiSync
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one run of the built `manashiki-sync` binary printed and returned.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
    var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
    var all: String { stdout + stderr }

    /// Every stdout line parsed as a JSON object (records an issue for a line that is not one).
    func jsonLines(sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]] {
        stdoutLines.compactMap { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil, "not a JSON object: \(line)", sourceLocation: sourceLocation)
            return object
        }
    }

    /// The last JSON line, which must be the summary.
    func summary(sourceLocation: SourceLocation = #_sourceLocation) -> [String: Any] {
        let last = jsonLines(sourceLocation: sourceLocation).last ?? [:]
        #expect(last["type"] as? String == "summary", sourceLocation: sourceLocation)
        return last
    }
}


/// Runs the built binary.
enum CLI {
    /// The `manashiki-sync` binary next to the test bundle (`.build/debug` or
    /// `.build/<triple>/debug`).
    static let binary: URL = {
        var candidates: [URL] = []
        let arg0 = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        var dir = arg0.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(dir.appendingPathComponent("manashiki-sync"))
            dir = dir.deletingLastPathComponent()
        }
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("manashiki-sync"))
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("manashiki-sync"))
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        candidates.append(cwd.appendingPathComponent(".build/debug/manashiki-sync"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    /// A running process with live output (see `RunningChild`).
    final class Running: @unchecked Sendable {
        let child: RunningChild
        init(_ child: RunningChild) { self.child = child }

        var process: ChildProcess { child.process }
        var out: OutputPipe { child.out }

        /// Waits until `condition(stdout)` holds (up to `timeout` seconds).
        func waitForOutput(timeout: Double = 20, _ condition: (String) -> Bool) async -> Bool {
            await child.wait(timeout: timeout) { condition(child.out.text) }
        }

        /// Sends `signal`.
        func send(_ signal: Int32) { child.send(signal) }

        /// Sends `signal` as soon as `condition(stdout)` holds (see `RunningChild.send(_:when:)`).
        func send(_ signal: Int32, whenOutput condition: @escaping @Sendable (String) -> Bool) async -> Bool {
            await child.send(signal, when: { [child] in condition(child.out.text) })
        }

        /// Waits for the exit (killing it after `timeout` seconds).
        func finish(timeout: Double = 30) async -> CLIResult {
            let r = await child.finish(timeout: timeout)
            return CLIResult(status: r.status, stdout: r.stdout, stderr: r.stderr)
        }
    }

    /// Starts the binary with exactly `environment` (plus PATH and HOME).
    static func start(_ arguments: [String], environment: [String: String] = [:], in directory: URL) throws -> Running {
        Running(try RunningChild.start(binary, arguments, environment: environment, path: "/usr/bin:/bin", in: directory))
    }

    /// Runs the binary to completion.
    static func run(_ arguments: [String], environment: [String: String] = [:], in directory: URL) async throws -> CLIResult {
        try await start(arguments, environment: environment, in: directory).finish()
    }
}

/// A development registry with three small models and a scratch directory with a manifest.
final class Fixture: @unchecked Sendable {
    /// A publishable key the registry accepts (tests check it never appears in any output).
    static let key = "mk_pub_demo_Kq7SecretKeyZ0123456789abcd"
    /// A legacy key (can mint sessions).
    static let legacyKey = "sk_live_Kq7LegacyKeyZ0123456789"

    let registry: DevelopmentRegistry
    let directory: URL
    var store: URL { directory.appendingPathComponent("models") }
    var manifestURL: URL { directory.appendingPathComponent("manashiki.json") }
    var environment: [String: String] { ["MANASHIKI_API_KEY": Fixture.key] }

    init(models: [String] = ["alpha", "beta"], extraModelEntries: [String] = [], policies: String? = nil) throws {
        var catalog = RegistryCatalog()
        catalog.keys = [RegistryKey(secret: Fixture.key), RegistryKey(secret: Fixture.legacyKey, organization: "demo")]
        catalog.add(model: RegistryModel(modelId: "alpha", version: "1.0.0", artifact: .generated(size: 64 << 10, seed: 101), platforms: ["linux"]))
        catalog.add(model: RegistryModel(modelId: "beta", version: "2.1.0", artifact: .generated(size: 128 << 10, seed: 102), platforms: ["linux"]))
        catalog.add(model: RegistryModel(modelId: "secret", version: "1.0.0", artifact: .generated(size: 32 << 10, seed: 103),
                                         platforms: ["linux"], visibility: "private", organization: "demo"))
        registry = try DevelopmentRegistry.start(catalog: catalog)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("manashiki-cli-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try writeManifest(models: models, extraModelEntries: extraModelEntries, policies: policies)
    }

    deinit {
        registry.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Writes `manashiki.json` for `models` (ids) plus raw JSON entries.
    func writeManifest(models: [String], extraModelEntries: [String] = [], policies: String? = nil, prune: String = #"{"mode": "tracked", "maxDeletes": 10}"#) throws {
        let entries = models.map { #"{"id": "\#($0)"}"# } + extraModelEntries
        let text = """
        {"schemaVersion": 1,
         "registry": {"baseURL": "\(registry.apiBaseURL.absoluteString)"},
         "store": {"directory": "models", "concurrency": 2, "prune": \(prune)},
         "device": {"platform": "linux"},
         "policies": \(policies ?? #"{"checkCompatibility": false, "retry": {"maxAttempts": 1}}"#),
         "models": [\(entries.joined(separator: ", "))]}
        """
        try Data(text.utf8).write(to: manifestURL)
    }

    /// Runs the binary in the fixture's directory with the key in the environment (unless overridden).
    func run(_ arguments: [String], environment: [String: String]? = nil) async throws -> CLIResult {
        try await CLI.run(arguments, environment: environment ?? self.environment, in: directory)
    }

    /// Starts the binary without waiting.
    func start(_ arguments: [String], environment: [String: String]? = nil) throws -> CLI.Running {
        try CLI.start(arguments, environment: environment ?? self.environment, in: directory)
    }

    /// The installed bytes of `id`.
    func installed(_ id: String) -> Data? { FileManager.default.contents(atPath: store.appendingPathComponent("\(id).bin").path) }

    /// Whether `id` is installed with the registry's exact bytes.
    func isInstalledIntact(_ id: String) -> Bool {
        guard let bytes = installed(id) else { return false }
        return bytes == registry.artifactBytes(modelId: id)
    }
}

/// Whether `text` contains control characters other than newline (ESC, CR, BEL…).
func hasControlCharacters(_ text: String) -> Bool {
    text.unicodeScalars.contains { ($0.value < 0x20 && $0.value != 0x0A) || (0x7F...0x9F).contains($0.value) }
}

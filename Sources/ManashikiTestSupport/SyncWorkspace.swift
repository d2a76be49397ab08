#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation

/// A directory holding `manashiki.json`, the store that manifest names, and a registry that
/// serves the models: the mechanism the CLI fixtures (`Fixture`, `BudgetFixture`) and the
/// reliability fixtures (`SyncFixture`, `ScriptedSync`) share. A fixture says which registry
/// it starts (its catalog, keys and manifest are its own); the workspace runs the built
/// `manashiki-sync` in `directory` and reads the store.
///
/// ```swift
/// final class Fixture: SyncWorkspace { … }
/// let result = try await fixture.run(["sync", "--json"])
/// #expect(fixture.isInstalledIntact("alpha"))
/// ```
package protocol SyncWorkspace: AnyObject, Sendable {
    /// Where the binary runs (its `HOME` too) and `manashiki.json` is.
    var directory: URL { get }
    /// The store the manifest names.
    var store: URL { get }
    /// What every run gets unless a test gives its own: the API key.
    var environment: [String: String] { get }
    /// The bytes the registry serves for `id` (empty when it serves none).
    func expected(_ id: String) -> Data
}

extension SyncWorkspace {
    /// `<directory>/manashiki.json`.
    package var manifestURL: URL { directory.appendingPathComponent("manashiki.json") }

    /// Runs the built binary in `directory` to the end, with `environment` unless given one
    /// (SIGKILL after `timeout` seconds, recorded as an issue).
    package func run(_ arguments: [String] = ["sync"], environment: [String: String]? = nil, timeout: Double = 60) async throws -> ChildResult {
        try await CLIProcess.run(arguments, environment: environment ?? self.environment, in: directory, timeout: timeout)
    }

    /// Starts the built binary in `directory` without waiting.
    package func start(_ arguments: [String] = ["sync"], environment: [String: String]? = nil) throws -> RunningChild {
        try CLIProcess.start(arguments, environment: environment ?? self.environment, in: directory)
    }

    /// `<store>/<id>.bin`.
    package func modelFile(_ id: String) -> URL { store.appendingPathComponent("\(id).bin") }
    /// The installed bytes of `id`, or nil when it is not installed.
    package func installed(_ id: String) -> Data? { FileManager.default.contents(atPath: modelFile(id).path) }
    /// Whether `id` is installed with exactly the bytes the registry serves.
    package func isInstalledIntact(_ id: String) -> Bool { installed(id) == expected(id) }
}
#endif

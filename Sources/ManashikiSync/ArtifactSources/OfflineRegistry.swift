import Foundation
import Manashiki

/// The registry of an `--offline` run (`Reconciler.Options.offline`, the one statement of
/// it): `Reconciler(manifest:apiKey:transport:options:)` uses it instead of a client, so no
/// key is needed. The run never calls it (plans come from the lock or the bundles' indexes,
/// bytes from bundle directories); any call fails with an error saying so.
struct OfflineRegistry: RegistryClient {
    /// The store directory.
    let storageDirectory: URL

    /// A registry stand-in for `storageDirectory`.
    init(storageDirectory: URL) { self.storageDirectory = storageDirectory }

    /// No sessions offline.
    var canIssueSessions: Bool { false }

    static var refusal: SyncFailure {
        SyncFailure(kind: .terminal, message: "offline: no network request is made (run without \(Remedy.offline) to reach the registry)")
    }

    /// Throws: offline.
    func listModels() async throws -> [ModelEntry] { throw Self.refusal }
    /// Throws: offline.
    func getModel(_ modelId: String) async throws -> ModelRecord { throw Self.refusal }
    /// Throws: offline.
    func createSession(principalId: String, ttlSec: Int) async throws -> ModelSession { throw Self.refusal }
    /// Throws: offline.
    func download(_ modelId: String, session: String?, expecting: ExpectedArtifact, options: DownloadOptions,
                         progress: (@Sendable (Int64, Int64?) -> Void)?) async throws -> DownloadedModel { throw Self.refusal }
}

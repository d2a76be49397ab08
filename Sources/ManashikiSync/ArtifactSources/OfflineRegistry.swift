import Foundation
import Manashiki

/// The registry of an `--offline` run: it makes no request. A run with
/// `Reconciler.Options.offline` never calls it (plans come from the lock or the bundles'
/// indexes, bytes from bundle directories); any call fails with an error saying so.
///
/// ```swift
/// var options = Reconciler.Options()
/// options.offline = true
/// options.extraSources = [ArtifactSource(.bundle("/media/usb/models"))]
/// let report = await Reconciler(manifest: manifest, registry: OfflineRegistry(storageDirectory: manifest.storeDirectory),
///                               options: options).run()
/// ```
public struct OfflineRegistry: RegistryClient {
    /// The store directory.
    public let storageDirectory: URL

    /// A registry stand-in for `storageDirectory`.
    public init(storageDirectory: URL) { self.storageDirectory = storageDirectory }

    /// No sessions offline.
    public var canIssueSessions: Bool { false }

    static var refusal: SyncFailure {
        SyncFailure(kind: .terminal, message: "offline: no network request is made (run without --offline to reach the registry)")
    }

    /// Throws: offline.
    public func listModels() async throws -> [ModelEntry] { throw Self.refusal }
    /// Throws: offline.
    public func getModel(_ modelId: String) async throws -> ModelRecord { throw Self.refusal }
    /// Throws: offline.
    public func createSession(principalId: String, ttlSec: Int) async throws -> ModelSession { throw Self.refusal }
    /// Throws: offline.
    public func download(_ modelId: String, session: String?, expecting: ExpectedArtifact, options: DownloadOptions,
                         progress: (@Sendable (Int64, Int64?) -> Void)?) async throws -> DownloadedModel { throw Self.refusal }
}

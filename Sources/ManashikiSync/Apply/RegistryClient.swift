import Foundation
import Manashiki

/// The registry as the sync agent needs it. `ManashikiClient` conforms; tests use a fake.
///
/// ```swift
/// let registry: any RegistryClient = try ManashikiClient(apiKey: key, storageDirectory: store)
/// let report = await Reconciler(manifest: manifest, registry: registry).run()
/// ```
public protocol RegistryClient: Sendable {
    /// Where `download` installs `<modelId>.bin`; must be the manifest's store directory.
    var storageDirectory: URL { get }
    /// Whether `createSession` can succeed with this client's key (legacy `sk_live_` keys only).
    var canIssueSessions: Bool { get }
    /// `GET /api/models`.
    func listModels() async throws -> [ModelEntry]
    /// `GET /api/models`, keeping the valid entries when some are invalid.
    func listCatalog() async throws -> CatalogListing
    /// `GET /api/models/{id}`.
    func getModel(_ modelId: String) async throws -> ModelRecord
    /// `POST /api/session`.
    func createSession(principalId: String, ttlSec: Int) async throws -> ModelSession
    /// Downloads, verifies and atomically installs `<storageDirectory>/<modelId>.bin`, refusing
    /// an artifact other than `expecting`, with the transfer tuning in `options` (stall
    /// timeout, resumptions, URL refreshes, redirects, deadline).
    func download(_ modelId: String, session: String?, expecting: ExpectedArtifact, options: DownloadOptions,
                  progress: (@Sendable (Int64, Int64?) -> Void)?) async throws -> DownloadedModel
}

extension RegistryClient {
    /// The catalog from `listModels()` (for clients that cannot tell bad entries apart).
    public func listCatalog() async throws -> CatalogListing { CatalogListing(entries: try await listModels()) }
}

extension ManashikiClient: RegistryClient {
    /// Whether the key can mint sessions (`sk_live_`).
    public var canIssueSessions: Bool { apiKey.canIssueSessions }

    /// `downloadModel(_:session:expecting:options:progress:)`.
    public func download(_ modelId: String, session: String?, expecting: ExpectedArtifact, options: DownloadOptions,
                         progress: (@Sendable (Int64, Int64?) -> Void)?) async throws -> DownloadedModel {
        try await downloadModel(modelId, session: session, expecting: expecting, options: options, progress: progress)
    }
}

import Foundation
import Manashiki

/// One-call entry points for apps.
///
/// ```swift
/// // At launch: restore what a reinstall or a backup restore lost.
/// let url = Bundle.main.url(forResource: "models", withExtension: "json")!
/// let report = try await ModelSync.restore(manifestURL: url, apiKey: "mk_pub_acme_…")
/// if report.outcome == .partialFailure { /* retry later */ }
/// ```
public enum ModelSync {
    /// Loads the manifest at `manifestURL` and reconciles the store with it: an empty store is
    /// filled, missing, truncated or corrupt files are replaced, intact ones are kept (re-hashed
    /// once if the state file was lost), and the state is rebuilt.
    ///
    /// - Parameters:
    ///   - apiKey: the app's publishable key (`mk_pub_…`); nil reads the manifest's key source.
    ///   - baseURL: the registry to use instead of the manifest's `registry.baseURL` (which
    ///     defaults to `https://models.manashiki.com`): a debug build's development registry,
    ///     `http://127.0.0.1:8080`, without a second manifest.
    ///   - storeDirectory: where models live; nil uses the manifest's `store.directory`, else the
    ///     SDK's default (Application Support/ManashikiModels). A manifest inside an app bundle
    ///     should not name a relative directory (the bundle is read-only).
    ///   - transport: how requests are sent (inject a mock in tests); nil builds a
    ///     `DefaultTransport` with the manifest's `policies.network`.
    ///   - onEvent: progress for UI.
    ///
    /// With `trust.tuf` in the manifest (its `root` file may sit beside the manifest in the app
    /// bundle: a relative path is resolved against the manifest's directory), the restore
    /// verifies exactly as `manashiki-sync sync` does: nothing installs, replaces or is kept as
    /// verified unless the signed repository lists its version with its digest and length, no
    /// older version than one already installed with trust (unless pinned exactly), nothing
    /// after the metadata expired; a refusal fails the model (`ModelResult.status`, its
    /// `SyncFailure.trust`) and leaves its file as it was. Its high-water marks are
    /// `options.trustHighWaterMarks`, else `AppTrustMarks.forStore(_:)`'s (the Keychain on Apple
    /// platforms), shared with a `TUFTrust` of the same store.
    /// - Throws: `ManifestError` for an invalid manifest; `SyncFailure`/`APIError` for a bad key.
    ///   Sync failures are in the report, not thrown.
    public static func restore(manifestURL: URL, apiKey: String? = nil, baseURL: URL? = nil, storeDirectory: URL? = nil,
                               transport: (any HTTPTransport)? = nil,
                               options: Reconciler.Options = Reconciler.Options(),
                               onEvent: (@Sendable (SyncEvent) -> Void)? = nil) async throws -> SyncReport {
        var manifest = try Manifest.load(contentsOf: manifestURL)
        if let baseURL { manifest.registry.baseURL = baseURL }
        if let storeDirectory { manifest.store.directory = storeDirectory.standardizedFileURL.path }
        var options = options
        if manifest.trust.tuf != nil, options.trustHighWaterMarks == nil {
            options.trustHighWaterMarks = AppTrustMarks.forStore(manifest.storeDirectory)
        }
        return try await Reconciler(manifest: manifest, apiKey: apiKey, transport: transport, options: options).run(onEvent: onEvent)
    }
}

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
    /// - Throws: `ManifestError` for an invalid manifest; `SyncFailure`/`APIError` for a bad key.
    ///   Sync failures are in the report, not thrown.
    public static func restore(manifestURL: URL, apiKey: String? = nil, baseURL: URL? = nil, storeDirectory: URL? = nil,
                               transport: (any HTTPTransport)? = nil,
                               options: Reconciler.Options = Reconciler.Options(),
                               onEvent: (@Sendable (SyncEvent) -> Void)? = nil) async throws -> SyncReport {
        var manifest = try Manifest.load(contentsOf: manifestURL)
        if let baseURL { manifest.registry.baseURL = baseURL }
        if let storeDirectory { manifest.store.directory = storeDirectory.standardizedFileURL.path }
        return try await Reconciler(manifest: manifest, apiKey: apiKey, transport: transport, options: options).run(onEvent: onEvent)
    }
}

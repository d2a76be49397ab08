import Foundation
import Manashiki

extension TUFSettings {
    /// The `ArtifactTrust` of `trust.tuf` for one update cycle of `layout`'s store: the pinned
    /// root `anchor`, the store's trusted metadata (`.manashiki/tuf/metadata`), high-water marks
    /// (`.manashiki/trust/high-water.json`), and expiry judged at the clock or, when the clock
    /// reads earlier, at the latest time this store already checked trust (a clock set back
    /// does not make expired metadata fresh again).
    /// - Parameters:
    ///   - source: where new metadata is read (`metadataURL`, or an exported bundle's copy).
    ///   - clock: the clock's reading now.
    ///   - highWaterMarks: where the marks are kept instead (an app's Keychain); nil: the store's file.
    public func artifactTrust(anchor: Data, layout: StoreLayout, source: any TUFMetadataSource, clock: Date = Date(),
                              highWaterMarks: (any TrustHighWaterMarks)? = nil) -> TUFArtifactTrust {
        let marks = highWaterMarks ?? FileHighWaterMarks(file: layout.trustHighWaterFile)
        let updater = TUFUpdater(anchor: anchor, store: TUFMetadataStore(directory: layout.tufMetadataDirectory), source: source,
                                 now: marks.referenceTime(clock: clock))
        return TUFArtifactTrust(updater: updater, highWater: marks, isOlder: Self.isOlder)
    }

    /// The sync agent's version order (`ModelVersion`: `1.10` after `1.9`); versions it cannot
    /// parse compare as text.
    static let isOlder: @Sendable (String, String) -> Bool = { a, b in
        if let x = ModelVersion(a), let y = ModelVersion(b) { return x < y }
        return a < b
    }
}

extension SyncRun {
    /// `trust.tuf`'s `ArtifactTrust` for this run, nil when the manifest has none: what the
    /// run's trust chain puts first, so a version the signed repository does not list is refused
    /// before anything else is asked. Online it reads `metadataURL` over the registry client's
    /// transport (its CA bundle and proxies); `--offline` reads the first bundle source that
    /// carries an exported metadata chain (`<bundle>/tuf/`).
    /// - Throws: `ManifestError` when the pinned root cannot be read.
    func makeTUFTrust() throws -> TUFArtifactTrust? {
        guard let settings = manifest.trust.tuf, let anchor = try manifest.tufRootData() else { return nil }
        let source: any TUFMetadataSource
        if options.offline {
            if let folder = offlineMetadataDirectory() {
                source = TUFDirectorySource(directory: folder)
            } else {
                source = TUFNoSource(reason: "offline, and no bundle source carries signed metadata (<bundle>/\(BundleLayout.tufFolderName)/timestamp.json): export the bundle with trust.tuf in the manifest from a store that synced online, or sync online")
            }
        } else {
            source = TUFHTTPSource(baseURL: settings.metadataURL, transport: (registry as? ManashikiClient)?.transport ?? DefaultTransport())
        }
        return settings.artifactTrust(anchor: anchor, layout: layout, source: source, highWaterMarks: options.trustHighWaterMarks)
    }

    /// The `tuf/` folder of the first bundle source that has one.
    private func offlineMetadataDirectory() -> URL? {
        for source in options.extraSources + manifest.sources {
            guard case .bundle(let path) = source.kind else { continue }
            let folder = URL(fileURLWithPath: path).appendingPathComponent(BundleLayout.tufFolderName, isDirectory: true)
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("timestamp.json").path) { return folder }
        }
        return nil
    }
}

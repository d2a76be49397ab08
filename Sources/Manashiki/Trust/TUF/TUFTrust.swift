import Foundation
import ManashikiCore

/// Signed metadata (TUF) for an app: `downloadModel` installs a model only when the publisher's
/// signed repository lists `models/<modelId>/<version>.bin` with exactly the SHA-256 and length
/// the registry serves, never an older version than one already installed with trust (unless
/// pinned in `pinnedVersions`), never after the metadata expired. The same rules and the same
/// client (`TUFArtifactTrust` over `TUFUpdater`) as the sync agent's `trust.tuf`: an app and
/// `manashiki-sync sync` judge a model alike.
///
/// ```swift
/// let root = try Data(contentsOf: Bundle.main.url(forResource: "root", withExtension: "json")!)
/// let tuf = try TUFTrust(root: root, metadataURL: URL(string: "https://models.example.com/tuf/metadata/")!,
///                        store: client.storageDirectory)
/// var options = DownloadOptions()
/// options.trust = ArtifactTrustChain([tuf])
/// do {
///     let model = try await client.downloadModel("whisper-tiny", session: nil, expecting: nil, options: options)
/// } catch let refusal as TrustRefusal {
///     // refusal.reasonCode: not-signed, mismatch, rollback, expired, metadata, unavailable;
///     // the installed file, if any, stays.
/// }
/// ```
///
/// **Where it plugs in.** `DownloadOptions.trust`, not the client's configuration: it is where
/// publisher signatures (`PublisherSignatureCheck`) already go, so both combine in one
/// `ArtifactTrustChain` (TUF first), and the SDK guide's `ManashikiClient` initializer stays as
/// it is. The trust is consulted with the digest and size the transfer enforces, before a byte
/// is fetched; a refusal throws `TrustRefusal` (its `tuf` is the TUF client's error) and the
/// installed file stays.
///
/// **Where its state lives.** The trusted metadata in `<store>/.manashiki/tuf/metadata/`
/// (`StoreLayout`, the sync agent's place) and the high-water marks where
/// `AppTrustMarks.forStore(_:)` keeps them, so `ModelSync.restore` into the same store shares
/// both.
///
/// **Update cycles.** Each evaluation runs one TUF update cycle (§5: the repository's newest
/// timestamp, snapshot and targets, judged at a fixed reference time). Evaluations that overlap
/// in this process on the same metadata directory share one cycle (one refresh for a burst of
/// downloads); the next one after they finished refreshes again. Use one repository per
/// metadata directory.
public struct TUFTrust: ArtifactTrust {
    /// Where the trusted metadata is kept (`<store>/.manashiki/tuf/metadata`).
    public let metadataDirectory: URL
    /// Where the highest version installed with trust, per model, and the latest time trust
    /// was checked are kept.
    public let highWaterMarks: any TrustHighWaterMarks
    /// Versions allowed although older than the high-water mark: model id → exact version (an
    /// app's deliberate downgrade, as an exact pin in a manifest).
    public let pinnedVersions: [String: String]
    let root: Data
    let source: any TUFMetadataSource
    let isOlder: @Sendable (String, String) -> Bool
    let clock: @Sendable () -> Date

    /// Trust in the repository at `metadataURL`, starting from `root` (the publisher's
    /// `root.json`, shipped in the app bundle).
    /// - Parameters:
    ///   - root: the bytes of the root to trust first (any version; newer roots are fetched and
    ///     verified from it).
    ///   - metadataURL: the directory holding `timestamp.json` (https; http only to this machine).
    ///   - store: the model store (the client's `storageDirectory`; nil: the SDK's default),
    ///     under which the trusted metadata and, by default, the high-water marks are kept.
    ///   - highWaterMarks: where the marks are kept; nil: `AppTrustMarks.forStore(store)`.
    ///   - transport: how metadata is fetched (the client's `transport`, for its CA bundle and
    ///     proxies).
    ///   - pinnedVersions: model id → a version that may install although older than the mark.
    ///   - isOlder: the version order (dotted numbers, then text).
    /// - Throws: `APIError.refusedURL` for a metadata URL that is not https (or http to this
    ///   machine); `TUFError` when `root` is not a TUF root signed by its own threshold.
    public init(root: Data, metadataURL: URL, store: URL? = nil, highWaterMarks: (any TrustHighWaterMarks)? = nil,
                transport: any HTTPTransport = DefaultTransport(), pinnedVersions: [String: String] = [:],
                isOlder: @escaping @Sendable (String, String) -> Bool = TUFArtifactTrust.dottedOrder) throws {
        if let refusal = URLPolicy.refusal(for: metadataURL) {
            throw APIError.refusedURL("the TUF metadata URL \(URLPolicy.origin(of: metadataURL)): \(refusal)")
        }
        try self.init(root: root, source: TUFHTTPSource(baseURL: metadataURL, transport: transport), store: store,
                      highWaterMarks: highWaterMarks, pinnedVersions: pinnedVersions, isOlder: isOlder)
    }

    /// Trust in the repository `source` reads (a `TUFDirectorySource` over metadata shipped
    /// with the app or carried on a medium), starting from `root`.
    /// The parameters are those of `init(root:metadataURL:…)`.
    /// - Throws: `TUFError` when `root` is not a TUF root signed by its own threshold.
    public init(root: Data, source: any TUFMetadataSource, store: URL? = nil, highWaterMarks: (any TrustHighWaterMarks)? = nil,
                pinnedVersions: [String: String] = [:],
                isOlder: @escaping @Sendable (String, String) -> Bool = TUFArtifactTrust.dottedOrder) throws(TUFError) {
        try self.init(root: root, source: source, store: store, highWaterMarks: highWaterMarks, pinnedVersions: pinnedVersions,
                      isOlder: isOlder, clock: { Date() })
    }

    init(root: Data, source: any TUFMetadataSource, store: URL?, highWaterMarks: (any TrustHighWaterMarks)?,
         pinnedVersions: [String: String], isOlder: @escaping @Sendable (String, String) -> Bool,
         clock: @escaping @Sendable () -> Date) throws(TUFError) {
        _ = try TUFTrustedSet(root: root, now: clock(), limits: TUFLimits()) // signed by its own threshold; expiry is judged after rotation
        let layout = StoreLayout(directory: store ?? ManashikiClient.defaultStorageDirectory)
        self.root = root
        self.source = source
        metadataDirectory = layout.tufMetadataDirectory
        self.highWaterMarks = highWaterMarks ?? AppTrustMarks.forStore(layout.directory)
        self.pinnedVersions = pinnedVersions
        self.isOlder = isOlder
        self.clock = clock
    }

    /// Refreshes the trusted metadata (one update cycle) and says what is trusted: each role's
    /// version and expiry (`timestampExpires` is the date to alert on).
    /// - Throws: `TUFError`.
    public func refresh() async throws(TUFError) -> TUFSummary {
        try await withCycle { cycle throws(TUFError) in try await cycle.refresh() }
    }

    /// Evidence that the signed repository lists `candidate`'s version with its digest and
    /// length, or a refusal (`mechanism` `tuf`): `notSigned`, `mismatch`, `rollback`, `expired`,
    /// `metadata` (the signed metadata was refused: `tuf` says how) or `unavailable`.
    public func evaluate(_ candidate: ArtifactCandidate) async throws(TrustRefusal) -> TrustEvidence {
        var candidate = candidate
        candidate.pinnedExactly = candidate.pinnedExactly || pinnedVersions[candidate.modelId] == candidate.version
        return try await withCycle { cycle throws(TrustRefusal) in try await cycle.evaluate(candidate) }
    }

    /// Records `candidate`'s version as the model's high-water mark when it is the highest.
    public func didInstall(_ candidate: ArtifactCandidate, evidence: TrustEvidence) async throws {
        try TUFArtifactTrust.raiseHighWater(candidate, in: highWaterMarks, isOlder: isOlder)
    }

    /// Runs `body` in the update cycle running for this metadata directory (or a new one).
    private func withCycle<T, E: Error>(_ body: (TUFArtifactTrust) async throws(E) -> T) async throws(E) -> T {
        let cycle = TUFCycles.shared.join(metadataDirectory.path, make: makeCycle)
        defer { TUFCycles.shared.leave(metadataDirectory.path) }
        return try await body(cycle)
    }

    /// A new update cycle: expiry judged at the clock, or at the latest time trust was already
    /// checked when the clock reads earlier (a clock set back does not help).
    private func makeCycle() -> TUFArtifactTrust {
        let updater = TUFUpdater(anchor: root, store: TUFMetadataStore(directory: metadataDirectory), source: source,
                                 now: highWaterMarks.referenceTime(clock: clock()))
        return TUFArtifactTrust(updater: updater, highWater: highWaterMarks, isOlder: isOlder)
    }
}

/// The update cycles running in this process, one per trusted-metadata directory: a call that
/// finds one running joins it (one refresh for overlapping downloads); the last to leave ends
/// it, and the next call starts a new one. So two cycles never write one directory at once here.
final class TUFCycles: Sendable {
    static let shared = TUFCycles()

    private struct Running {
        var cycle: TUFArtifactTrust
        var users: Int
    }
    private let running = Locked<[String: Running]>([:])

    /// The cycle running for `directory`, or a new one from `make`.
    func join(_ directory: String, make: () -> TUFArtifactTrust) -> TUFArtifactTrust {
        running.withLock { cycles in
            if var entry = cycles[directory] {
                entry.users += 1
                cycles[directory] = entry
                return entry.cycle
            }
            let cycle = make()
            cycles[directory] = Running(cycle: cycle, users: 1)
            return cycle
        }
    }

    /// Leaves `directory`'s cycle; the last user ends it.
    func leave(_ directory: String) {
        running.withLock { cycles in
            guard var entry = cycles[directory] else { return }
            entry.users -= 1
            cycles[directory] = entry.users > 0 ? entry : nil
        }
    }
}

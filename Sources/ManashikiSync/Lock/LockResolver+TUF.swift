import Foundation
import Manashiki

/// The versions of the signed TUF metadata a lock was checked against (`LockFile.signedMetadata`):
/// which metadata vouched for every locked artifact when the lock was written, for a reviewer
/// to compare and an operator to quote (`"signedMetadata": {"root": 2, "timestamp": 7,
/// "snapshot": 7, "targets": 5}`).
public struct SignedMetadataVersions: Sendable, Hashable, Codable {
    /// The trusted root's version.
    public var root: Int
    /// The timestamp's version.
    public var timestamp: Int
    /// The snapshot's version.
    public var snapshot: Int
    /// The top-level targets' version.
    public var targets: Int

    /// The versions a refresh trusted.
    public init(_ summary: TUFSummary) {
        root = summary.rootVersion
        timestamp = summary.timestampVersion
        snapshot = summary.snapshotVersion
        targets = summary.targetsVersion
    }
}

extension LockResolver {
    /// With `trust.tuf`: refreshes the signed metadata (the manifest's pinned root, the store's
    /// trusted metadata and high-water marks, `metadataURL` over `transport`, as a sync does) and
    /// checks every locked artifact against it: the signed repository must list
    /// `models/<id>/<version>.bin` with exactly the locked SHA-256 and length. Returns the lock
    /// stamped with the metadata's versions, the required models the signed repository does not
    /// vouch for, and the optional ones, left out of the lock. Without `trust.tuf`, the lock as
    /// it is.
    /// - Throws: `TUFError` when the metadata cannot be refreshed (refused, expired or
    ///   unavailable): nothing can be locked with trust then; `ManifestError` when the pinned
    ///   root cannot be read.
    public static func confirmSigned(_ lock: LockFile, manifest: Manifest, transport: any HTTPTransport,
                                     clock: Date = Date()) async throws -> (LockFile, [Problem], [Problem]) {
        guard let settings = manifest.trust.tuf, let anchor = try manifest.tufRootData() else { return (lock, [], []) }
        let trust = settings.artifactTrust(anchor: anchor, layout: StoreLayout(directory: manifest.storeDirectory),
                                           source: TUFHTTPSource(baseURL: settings.metadataURL, transport: transport), clock: clock)
        let summary = try await trust.refresh()
        var problems: [Problem] = []
        for artifact in lock.models {
            // `.keep`: a lock installs nothing, so the per-model high-water mark is the sync's to apply.
            let candidate = ArtifactCandidate(modelId: artifact.modelId, version: artifact.version, sha256: artifact.sha256, size: artifact.size,
                                              source: "the registry", purpose: .keep)
            do { _ = try await trust.evaluate(candidate) } catch {
                problems.append(Problem(modelId: artifact.modelId, message: "cannot be locked with trust.tuf: \(error.description)"))
            }
        }
        let optional = Set(manifest.models.filter(\.isOptional).map(\.id))
        let leftOut = Set(problems.map(\.modelId)).intersection(optional)
        var signed = LockFile(models: lock.models.filter { !leftOut.contains($0.modelId) })
        signed.signedMetadata = SignedMetadataVersions(summary)
        return (signed, problems.filter { !optional.contains($0.modelId) }, problems.filter { optional.contains($0.modelId) })
    }
}

extension SignedMetadataVersions: CustomStringConvertible {
    /// Versions given one by one.
    public init(root: Int, timestamp: Int, snapshot: Int, targets: Int) {
        self.root = root
        self.timestamp = timestamp
        self.snapshot = snapshot
        self.targets = targets
    }

    /// The versions of a store's trusted metadata (`TUFTrustedState`), nil unless all four
    /// top-level roles are there and readable.
    public init?(_ state: TUFTrustedState) {
        guard let root = state.role("root"), let timestamp = state.role("timestamp"), let snapshot = state.role("snapshot"),
              let targets = state.role("targets") else { return nil }
        self.init(root: root.version, timestamp: timestamp.version, snapshot: snapshot.version, targets: targets.version)
    }

    /// Root, timestamp, snapshot, targets: the order the client updates them.
    var ordered: [Int] { [root, timestamp, snapshot, targets] }

    /// `root v1, timestamp v7, snapshot v7, targets v5`.
    public var description: String { "root v\(root), timestamp v\(timestamp), snapshot v\(snapshot), targets v\(targets)" }
}

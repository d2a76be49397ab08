import Foundation
import ManashikiCore
import Manashiki

/// One exact artifact of a model: what a bundle's index and a lock file list.
///
/// ```json
/// {"modelId": "whisper-tiny-en", "version": "1.2.0", "size": 4194304,
///  "sha256": "9f86d081…", "record": {"visibility": "public", "lifecycle": {"status": "production"},
///  "compatibility": {"platforms": ["linux", "macos"], "min_os": "13.0"}},
///  "signature": {"sha256": "5e1c…", "size": 3412}}
/// ```
/// `signature` (optional; readers that predate it ignore it) names the publisher's `model.sig`
/// for this artifact, stored beside it as an ordinary blob (`blobs/sha256/<hex>`, an OCI layer of
/// type `application/vnd.dev.sigstore.bundle.v0.3+json`).
public struct PinnedArtifact: Sendable, Hashable, Codable {
    /// The model id.
    public var modelId: String
    /// The version.
    public var version: String
    /// The size in bytes.
    public var size: Int64
    /// The SHA-256 (64 lowercase hex): the artifact's identity.
    public var sha256: String
    /// What the planner checks offline; nil when it was not known (then an offline plan
    /// reports the model as blocked instead of guessing).
    public var record: ArtifactFacts?
    /// The publisher signature (`model.sig`) carried beside the artifact, when there is one.
    public var signature: SignatureReference?

    /// Creates an entry.
    public init(modelId: String, version: String, size: Int64, sha256: String, record: ArtifactFacts? = nil,
                signature: SignatureReference? = nil) {
        self.modelId = modelId
        self.version = version
        self.size = size
        self.sha256 = sha256
        self.record = record
        self.signature = signature
    }

    /// The catalog entry it stands for.
    public var entry: ModelEntry { ModelEntry(modelId: modelId, version: version, size: size, sha256: sha256) }

    /// A registry record rebuilt from the facts, for the planner.
    public var modelRecord: ModelRecord? {
        record.map {
            ModelRecord(modelId: modelId, version: version, size: size, sha256: sha256,
                        compatibility: $0.compatibility, lifecycle: $0.lifecycle, visibility: $0.visibility)
        }
    }

    /// What is wrong with the entry (an invalid id, digest, size or version), as
    /// `(field, message)` pairs; empty when it is usable.
    public var problems: [(field: String, message: String)] {
        var out: [(String, String)] = []
        if !ModelID.isValid(modelId) { out.append(("modelId", "\"\(modelId.prefix(140))\" is not a valid model id")) }
        if !Hex.isSHA256(sha256) { out.append(("sha256", "is not 64 lowercase hex characters")) }
        if size < 0 { out.append(("size", "is negative")) }
        if size > ModelEntry.maxSize { out.append(("size", "is \(size) bytes, over the 1 PiB this package accepts: not a real artifact")) }
        if let signature {
            if !Hex.isSHA256(signature.sha256) { out.append(("signature.sha256", "is not 64 lowercase hex characters")) }
            if signature.size <= 0 || signature.size > Int64(SignatureURLLocator.maximumSize) {
                out.append(("signature.size", "is not between 1 and \(SignatureURLLocator.maximumSize) bytes"))
            }
        }
        if version.isEmpty || version.count > 128 || version.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            out.append(("version", "is empty, over 128 characters, or contains control characters"))
        }
        return out
    }
}

/// A publisher signature stored as a blob beside the artifact it signs: its SHA-256 (the blob's
/// name) and size.
public struct SignatureReference: Sendable, Hashable, Codable {
    /// The signature file's SHA-256 (64 lowercase hex).
    public var sha256: String
    /// Its size in bytes.
    public var size: Int64

    /// A reference.
    public init(sha256: String, size: Int64) {
        self.sha256 = sha256
        self.size = size
    }
}

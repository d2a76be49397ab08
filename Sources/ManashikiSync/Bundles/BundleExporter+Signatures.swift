import Foundation
import Manashiki

/// Publisher signatures travel with their models (#36): an exported model whose state records
/// a verified signature (`StoreState.Installed.signer`) carries the store's copy as an ordinary
/// blob, `blobs/sha256/<hex of model.sig>`, named by the index entry's `signature`. A bundle
/// served over HTTP is a mirror, and an S3 prefix and an OCI artifact hold the same blob, so
/// every source carries what the store verified.
extension BundleExporter {
    /// `artifact` with the store's copy of its publisher signature named, when the state
    /// records one for these bytes and the copy is intact; unchanged otherwise. A recorded
    /// signature whose copy is missing, changed or not a regular file (a symbolic link is never
    /// followed) is a failure: the model is exported without it.
    static func withSignature(_ artifact: PinnedArtifact, state: StoreState, store: StoreLayout, failures: inout [Failure]) -> PinnedArtifact {
        guard let installed = state.models[artifact.modelId], installed.sha256 == artifact.sha256,
              let sha = installed.signer?.signatureSHA256 else { return artifact }
        guard let data = StoredSignatures.read(artifact.modelId, sha256: sha, in: store) else {
            failures.append(Failure(modelId: artifact.modelId, message: "the store's copy of its publisher signature (\(store.signatureFile(artifact.modelId).path)) is missing or changed; exported without it, so a site that requires signatures refuses it — run \(Remedy.sync) (it looks for the signature again) and export again"))
            return artifact
        }
        var signed = artifact
        signed.signature = SignatureReference(sha256: sha, size: Int64(data.count))
        return signed
    }

    /// The signature blob of `artifact` as a blob of its own (for the copy and check of
    /// `copyBlob`).
    static func signatureBlob(_ artifact: PinnedArtifact) -> PinnedArtifact? {
        artifact.signature.map { PinnedArtifact(modelId: artifact.modelId, version: artifact.version, size: $0.size, sha256: $0.sha256) }
    }

    /// Puts `artifact`'s signature blob in the bundle (an intact one stays); when it cannot, the
    /// artifact is exported without it and a failure says so. Returns the artifact as exported.
    static func placeSignature(_ artifact: PinnedArtifact, from store: StoreLayout, into bundle: BundleLayout, blobs: DirectoryHandle,
                               report: inout Report) -> PinnedArtifact {
        guard let blob = signatureBlob(artifact), let signature = artifact.signature else { return artifact }
        if let info = blobs.info(blob.sha256), verifyExisting(blob, path: bundle.blob(blob.sha256).path, info: info) == .intact { return artifact }
        do {
            // Read through the store's descriptors and written durably through the bundle's.
            try blobs.replace(blob.sha256, with: try StoredSignatures.blob(artifact.modelId, signature, in: store))
            report.bytesCopied += blob.size
            return artifact
        } catch {
            report.failures.append(Failure(modelId: artifact.modelId, message: "its publisher signature could not be copied (\(SyncFailure(error).message)); exported without it, so a site that requires signatures refuses it — run \(Remedy.sync) and export again"))
            var unsigned = artifact
            unsigned.signature = nil
            return unsigned
        }
    }

    /// Whether an entry kept from an earlier index still has its signature blob (else the
    /// entry is kept without it).
    static func keepingSignature(_ entry: PinnedArtifact, blobs: DirectoryHandle) -> PinnedArtifact {
        guard let blob = signatureBlob(entry), let info = blobs.info(blob.sha256),
              POSIX.isRegular(info), Int64(info.st_size) == blob.size else {
            var unsigned = entry
            unsigned.signature = nil
            return unsigned
        }
        return entry
    }
}

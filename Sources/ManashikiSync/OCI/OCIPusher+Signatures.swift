import Foundation
import Manashiki

extension OCIPusher {
    /// Uploads `artifact`'s publisher signature (the store's copy, a small blob) unless the
    /// repository holds it; when it cannot, the artifact is pushed without it and a failure
    /// says so. Returns the artifact as pushed.
    static func pushSignature(_ artifact: PinnedArtifact, store: StoreLayout, client: OCIRegistryClient, report: inout Report) async -> PinnedArtifact {
        guard let signature = artifact.signature else { return artifact }
        do {
            if let held = try await client.blobSize(signature.sha256), held == signature.size || held < 0 { return artifact }
            let data = try StoredSignatures.blob(artifact.modelId, signature, in: store)
            guard case .session(let session, _) = try await client.startUpload(mounting: nil, from: nil) else {
                throw OCIError.registry(registry: client.registryName, operation: "POST blob upload", status: 201, code: nil, message: "no upload session")
            }
            try await client.finishUpload(session, sha256: signature.sha256, last: data)
            report.bytesUploaded += signature.size
            return artifact
        } catch {
            report.failures.append(BundleExporter.Failure(modelId: artifact.modelId, message: "its publisher signature could not be pushed (\(SyncFailure(error).message)); pushed without it, so a site that requires signatures refuses it — export again"))
            var unsigned = artifact
            unsigned.signature = nil
            return unsigned
        }
    }
}

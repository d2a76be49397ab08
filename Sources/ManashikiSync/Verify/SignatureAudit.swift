import Foundation
import Manashiki

/// The publisher signatures of a store's installed models checked again, offline: each intact
/// file's stored `model.sig` (`<store>/.manashiki/signatures/<id>.sig`, the one it was installed
/// with) verified against the pinned keys and roots now (`verify` with `trust.modelSigning`).
/// A key or root removed from the manifest, an expired certificate or a stored signature that
/// was changed is found without a sync.
///
/// ```swift
/// let report = await Verifier.verify(layout)
/// let signatures = try SignatureAudit.check(report, layout: layout, manifest: manifest)
/// ```
public enum SignatureAudit {
    /// One installed model's signature now.
    public enum Verdict: Sendable, Equatable {
        /// Its stored signature verifies, by this signer.
        case verified(PublisherSigner)
        /// Its signature is required and the store holds none for the installed file.
        case unsigned
        /// Its stored signature no longer verifies: what failed.
        case refused(PublisherSignatureFailure)

        /// Whether the file may not be kept as verified (`unsigned` or `refused`).
        public var isProblem: Bool { if case .verified = self { return false } else { return true } }
    }

    /// The verdict of each model `report` found intact (`.ok`), when the manifest has
    /// `trust.modelSigning` (or `trust` is given); empty otherwise. A model whose signature is
    /// optional and that has none is left out.
    /// - Parameters:
    ///   - trust: keys and roots to use instead of the manifest's (an app's).
    ///   - time: when certificates must be valid (now).
    /// - Throws: `PublisherTrustError` when a pinned key or root cannot be read.
    public static func check(_ report: VerificationReport, layout: StoreLayout, manifest: Manifest, trust: PublisherTrust? = nil,
                             at time: Date = Date()) throws -> [String: Verdict] {
        guard let settings = manifest.trust.modelSigning ?? (trust != nil ? ModelSigningSettings() : nil) else { return [:] }
        let verifier = PublisherSignatureVerifier(trust: try trust ?? settings.publisherTrust(baseDirectory: manifest.baseDirectory))
        guard case .loaded(let state) = StateFile.read(layout) else { return [:] }
        var verdicts: [String: Verdict] = [:]
        for (id, verdict) in report.files {
            guard case .ok(_, let sha256) = verdict else { continue }
            let required = (manifest.models.first { $0.id == id }?.signature ?? settings.defaultRequirement) == .required
            guard let recorded = state.models[id]?.signer?.signatureSHA256,
                  let data = StoredSignatures.read(id, sha256: recorded, in: layout) else {
                if required { verdicts[id] = .unsigned }
                continue
            }
            do { verdicts[id] = .verified(try verifier.verify(data, modelId: id, sha256: sha256, at: time)) } catch {
                verdicts[id] = .refused(error)
            }
        }
        return verdicts
    }
}

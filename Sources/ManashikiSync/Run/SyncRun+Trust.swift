import Foundation
import Manashiki

/// The run's trust: every mechanism the manifest's `trust` section configures, all required
/// (`ArtifactTrustChain`), consulted before anything is fetched for a download or a replacement
/// (the candidate's digest is the one the transfer enforces, whatever source serves it) and
/// before a kept or re-hashed file is reported as verified. A refusal fails the model and leaves
/// its installed file alone.
struct RunTrust: Sendable {
    /// The mechanisms, in order.
    var chain: ArtifactTrustChain
    /// Where publisher signatures were looked for (nil: `trust.modelSigning` is not configured);
    /// the one that verified is copied into the store from here.
    var signatures: SyncSignatureLocator?

    /// No trust configured.
    static let none = RunTrust(chain: ArtifactTrustChain([]), signatures: nil)

    /// Whether any trust is configured.
    var isEmpty: Bool { chain.isEmpty }
}

extension SyncRun {
    /// THE place the run's trust is built: one `ArtifactTrust` per mechanism the manifest's
    /// `trust` section configures (an app's `Reconciler.Options.publisherTrust` stands in for
    /// `trust.modelSigning`'s keys and roots), all required, in a fixed order.
    /// - Throws: `PublisherTrustError` when a pinned key or root cannot be read; `ManifestError`
    ///   when `trust.tuf.root`'s file cannot.
    func makeTrust(_ fetcher: ArtifactFetcher) throws -> RunTrust {
        var trusts: [any ArtifactTrust] = []
        var signatures: SyncSignatureLocator?
        // trust.tuf (issue 35) first, so a version the signed repository does not list is
        // refused before its publisher signature is looked for.
        if let tuf = try makeTUFTrust() { trusts.append(tuf) }
        if let settings = manifest.trust.modelSigning ?? (options.publisherTrust != nil ? ModelSigningSettings() : nil) {
            let pinned = try options.publisherTrust ?? settings.publisherTrust(baseDirectory: manifest.baseDirectory)
            let locator = SyncSignatureLocator(layout: layout, installed: { [state] id in state.withLock { $0.models[id] } },
                                               fetcher: fetcher, template: settings.signatureURL, verifier: PublisherSignatureVerifier(trust: pinned))
            let requirements = Dictionary(manifest.models.compactMap { m in m.signature.map { (m.id, $0) } }, uniquingKeysWith: { a, _ in a })
            trusts.append(PublisherSignatureCheck(trust: pinned, locator: locator, requirement: settings.defaultRequirement, requirements: requirements))
            signatures = locator
        }
        return RunTrust(chain: ArtifactTrustChain(trusts), signatures: signatures)
    }

    /// What the run's trust says of `candidate`: each mechanism's evidence (an unsigned model
    /// whose signature is optional becomes a warning); empty without trust.
    /// - Throws: a `SyncFailure` carrying the refusal (`SyncFailure.trust`); `CancellationError`.
    func confirm(_ candidate: ArtifactCandidate, trust: RunTrust) async throws -> [TrustEvidence] {
        guard !trust.isEmpty else { return [] }
        let evidence: [TrustEvidence]
        do { evidence = try await trust.chain.evaluate(candidate) } catch {
            try Task.checkCancellation()
            throw SyncFailure(error)
        }
        for proof in evidence where proof.facts["signed"] == "false" {
            tally.withLock { $0.sourceWarnings.append("\(candidate.modelId) \(candidate.version): \(proof.detail)") }
        }
        return evidence
    }

    /// Tells the run's trust that `candidate` was installed (TUF's high-water marks); a failure
    /// to record is a warning (the file is installed and verified).
    func didInstall(_ candidate: ArtifactCandidate, evidence: [TrustEvidence], trust: RunTrust) async {
        guard !trust.isEmpty else { return }
        do { try await trust.chain.didInstall(candidate, evidence: evidence) } catch {
            tally.withLock { $0.sourceWarnings.append("\(candidate.modelId): its trust record could not be updated (\(SyncFailure(error).message))") }
        }
    }

    /// Keeps a copy of the publisher signature that verified under `.manashiki/signatures/`
    /// (unless the store's copy is the one) and returns its signer for the state; nil without one.
    func keepSignature(_ id: String, _ evidence: [TrustEvidence], trust: RunTrust) -> PublisherSigner? {
        guard let signer = evidence.lazy.compactMap(PublisherSignatureCheck.signer(in:)).first else { return nil }
        let origin = evidence.first { $0.mechanism == PublisherSignatureCheck.mechanism }?.facts["origin"]
        guard origin != "store" else { return signer }
        guard let sha = signer.signatureSHA256, let data = trust.signatures?.found(sha) else { return signer }
        do { try StoredSignatures.write(data, for: id, in: layout) } catch {
            tally.withLock { $0.sourceWarnings.append("\(id): its publisher signature could not be kept in the store (\(SyncFailure(error).message)); the next run looks for it again") }
        }
        return signer
    }

    /// A kept model checked again: unchanged with its signer, or failed (the file stays).
    func confirmKept(_ item: PlanItem, version: String, context: FetchContext) async -> ModelResult {
        let id = item.modelId
        var result = ModelResult(modelId: id, planned: item, status: .unchanged(version: version))
        result.source = "store"
        guard let installed = state.withLock({ $0.models[id] }) else { return result }
        let candidate = ArtifactCandidate(modelId: id, version: installed.version, sha256: installed.sha256, size: installed.size, source: "store",
                                          purpose: .keep, pinnedExactly: pinnedExactly(id))
        do {
            let evidence = try await confirm(candidate, trust: context.trust)
            let signer = keepSignature(id, evidence, trust: context.trust)
            if signer != installed.signer {
                var entry = installed
                entry.signer = signer
                record(id, entry)
            }
            result.signer = signer
            result.trust = evidence
        } catch {
            result.status = .failed(SyncFailure(error))
        }
        return result
    }

    /// Whether the manifest pins exactly one version of `id` (`"version": "=1.2.0"`).
    func pinnedExactly(_ id: String) -> Bool {
        guard let spec = manifest.models.first(where: { $0.id == id }) else { return false }
        if case .exact = spec.version { return true }
        return false
    }
}

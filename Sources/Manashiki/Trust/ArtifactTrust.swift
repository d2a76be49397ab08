import Foundation

/// An artifact about to be installed, replaced, or kept as verified: what an `ArtifactTrust`
/// judges. The bytes may come from anywhere (the registry, a mirror, a bundle, an OCI registry,
/// a lock file's digest): the trust decides whether this digest and size may be this version.
public struct ArtifactCandidate: Sendable, Hashable {
    /// What is about to happen to it.
    public enum Purpose: String, Sendable, Hashable {
        /// Installed where nothing is.
        case install
        /// Installed over another version or a damaged file.
        case replace
        /// Already installed, and about to be kept as verified.
        case keep
    }

    /// The model id.
    public var modelId: String
    /// The version.
    public var version: String
    /// Its SHA-256 (lowercase hex), as the registry, lock file, bundle or store says.
    public var sha256: String
    /// Its size in bytes.
    public var size: Int64
    /// Where the digest comes from (`registry`, `lock file`, `bundle /media/models`, `store`).
    public var source: String
    /// What is about to happen.
    public var purpose: Purpose
    /// Whether the manifest pins exactly this version (a downgrade to it is then allowed).
    public var pinnedExactly: Bool

    /// A candidate.
    public init(modelId: String, version: String, sha256: String, size: Int64, source: String,
                purpose: Purpose = .install, pinnedExactly: Bool = false) {
        self.modelId = modelId
        self.version = version
        self.sha256 = sha256
        self.size = size
        self.source = source
        self.purpose = purpose
        self.pinnedExactly = pinnedExactly
    }
}

/// Why a candidate may be installed: which mechanism vouched for it, and how.
public struct TrustEvidence: Sendable, Hashable, Codable {
    /// The mechanism (`tuf`, `model-signing`).
    public var mechanism: String
    /// What vouches, in words (`targets v7 signs models/tiny/1.2.0.bin`).
    public var detail: String
    /// Machine-readable facts (metadata versions, key ids), for lock files and `--json`.
    public var facts: [String: String]

    /// Evidence.
    public init(mechanism: String, detail: String, facts: [String: String] = [:]) {
        self.mechanism = mechanism
        self.detail = detail
        self.facts = facts
    }
}

/// Why a candidate was refused. The installed file (if any) stays.
public struct TrustRefusal: Error, Sendable, Hashable, LocalizedError, CustomStringConvertible {
    /// What is wrong.
    public enum Reason: Sendable, Hashable {
        /// Nothing signed vouches for this version.
        case notSigned
        /// The signed digest or size differs from the candidate's: the text names both.
        case mismatch(signed: String, offered: String)
        /// An older version than the highest one installed with trust, not pinned exactly.
        case rollback(highest: String, offered: String)
        /// The signed metadata expired (or the clock was set back before a time already seen):
        /// nothing new is installed; installed models stay.
        case expired(role: String, at: Date)
        /// The signed metadata was refused (rollback, threshold, malformed…): the text says how.
        case metadata(String)
        /// The signed metadata could not be had (network, missing file): a retry may help.
        case unavailable(String)
        /// The publisher signature (OpenSSF model signing, `model.sig`) is missing, does not
        /// verify, or names a signer that is not pinned: the detail says which signature, where
        /// it was found, who it names and what failed (`PublisherSignatureRefusal.problem.code`
        /// is the stable code).
        case publisherSignature(PublisherSignatureRefusal)
    }

    /// The mechanism that refused (`tuf`, `model-signing`).
    public var mechanism: String
    /// The model.
    public var modelId: String
    /// The version refused.
    public var version: String
    /// Why.
    public var reason: Reason
    /// The role (TUF) or other part of the trust that refused, for `--json` (`timestamp`).
    public var role: String?
    /// The TUF client's error behind the refusal, when the signed metadata refused or could
    /// not be had (`metadata`, `expired`, `unavailable`, `not-signed`): its `reasonCode`
    /// (`rollback`, `threshold`, `too-large`…) is the refusal's `problemCode`.
    public var tuf: TUFError?

    /// A refusal.
    public init(mechanism: String, modelId: String, version: String, reason: Reason, role: String? = nil, tuf: TUFError? = nil) {
        self.mechanism = mechanism
        self.modelId = modelId
        self.version = version
        self.reason = reason
        self.role = role
        self.tuf = tuf
    }

    /// Whether retrying may help (the metadata could not be fetched); every other refusal
    /// stays until the publisher or the manifest changes.
    public var isRetryable: Bool {
        if case .unavailable = reason { return true }
        if case .publisherSignature(let refusal) = reason { return refusal.isRetryable }
        return false
    }

    /// The reason's finer stable code, when it has one: a publisher signature's problem
    /// (`missing`, `unknown-key`, `certificate-expired`… `PublisherSignatureProblem.code`), or
    /// the TUF client's reason behind a refusal of the signed metadata (`rollback`,
    /// `threshold`, `too-large`, `malformed`, `unexpected-version`, `removed`, `mismatch`,
    /// `expired`, `target-not-found`, `unavailable`: `TUFError.reasonCode`); nil otherwise.
    public var problemCode: String? {
        if case .publisherSignature(let refusal) = reason { return refusal.problem.code }
        return tuf?.reasonCode
    }

    /// The key or certificate a refused publisher signature names, when it was read.
    public var signer: PublisherSigner? {
        if case .publisherSignature(let refusal) = reason { return refusal.signer }
        return nil
    }

    /// Every `reasonCode`, in a fixed order (the metrics file has a series for each).
    public static let reasonCodes = ["not-signed", "mismatch", "rollback", "expired", "metadata", "unavailable", "signature"]

    /// A stable name of the reason: `not-signed`, `mismatch`, `rollback`, `expired`, `metadata`,
    /// `unavailable`, `signature` (with `problemCode`).
    public var reasonCode: String {
        switch reason {
        case .notSigned: "not-signed"
        case .mismatch: "mismatch"
        case .rollback: "rollback"
        case .expired: "expired"
        case .metadata: "metadata"
        case .unavailable: "unavailable"
        case .publisherSignature: "signature"
        }
    }

    /// What was refused, why, and what to do.
    public var description: String {
        let what = "\(modelId) \(version)"
        switch reason {
        case .notSigned:
            return "\(what) is not signed (\(mechanism)): nothing is installed. The publisher must sign it, or the manifest must ask for a signed version."
        case .mismatch(let signed, let offered):
            return "\(what): the signed artifact is \(signed) but \(offered) was offered: refused, the installed file stays. A registry, mirror or lock file disagrees with the publisher's signature."
        case .rollback(let highest, let offered):
            return "\(what): \(offered) is older than \(highest), the highest version installed with trust: refused. Pin exactly this version in the manifest (\"version\": \"\(version)\") to downgrade on purpose."
        case .expired(let role, let at):
            return "\(what): the signed \(role) metadata expired at \(ISO8601.string(from: at)): nothing new is installed until the publisher re-signs it (installed models stay and verify)."
        case .metadata(let why):
            return "\(what): the signed metadata was refused: \(why)"
        case .unavailable(let why):
            return "\(what): the signed metadata could not be fetched: \(why). Retrying may help."
        case .publisherSignature(let refusal):
            return "\(refusal). Nothing was installed or kept as verified; the installed file, if any, stays. \(refusal.problem.remedy)"
        }
    }

    /// Same as `description`.
    public var errorDescription: String? { description }
}

/// A check consulted before anything is installed, replaced or kept as verified: given the
/// candidate, evidence that it may be, or a `TrustRefusal`. TUF metadata (`trust.tuf`) is one;
/// publisher signatures (`trust.modelSigning`) another; `ArtifactTrustChain` requires all.
///
/// ```swift
/// let evidence = try await trust.evaluate(ArtifactCandidate(modelId: "tiny", version: "1.2.0",
///                                                           sha256: digest, size: size, source: "registry"))
/// ```
public protocol ArtifactTrust: Sendable {
    /// Evidence for `candidate`, or a refusal.
    func evaluate(_ candidate: ArtifactCandidate) async throws(TrustRefusal) -> TrustEvidence

    /// Called after `candidate` was installed with `evidence` (a trust that keeps high-water
    /// marks records it here). The default does nothing.
    func didInstall(_ candidate: ArtifactCandidate, evidence: TrustEvidence) async throws
}

extension ArtifactTrust {
    /// Does nothing.
    public func didInstall(_ candidate: ArtifactCandidate, evidence: TrustEvidence) async throws {}
}

/// Several trusts, all required, in order: the first refusal wins; the evidence is each one's.
public struct ArtifactTrustChain: Sendable {
    /// The trusts.
    public let trusts: [any ArtifactTrust]

    /// A chain of `trusts` (none: everything passes with no evidence, as without trust).
    public init(_ trusts: [any ArtifactTrust]) { self.trusts = trusts }

    /// Whether any trust is configured.
    public var isEmpty: Bool { trusts.isEmpty }

    /// Every trust's evidence for `candidate`, or the first refusal.
    public func evaluate(_ candidate: ArtifactCandidate) async throws(TrustRefusal) -> [TrustEvidence] {
        var evidence: [TrustEvidence] = []
        for trust in trusts { evidence.append(try await trust.evaluate(candidate)) }
        return evidence
    }

    /// Tells each trust that `candidate` was installed.
    public func didInstall(_ candidate: ArtifactCandidate, evidence: [TrustEvidence]) async throws {
        for (trust, proof) in zip(trusts, evidence) { try await trust.didInstall(candidate, evidence: proof) }
    }
}

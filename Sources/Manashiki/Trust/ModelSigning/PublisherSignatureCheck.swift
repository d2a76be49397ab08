import Foundation

/// A `model.sig` found for an artifact, and where.
public struct FoundSignature: Sendable, Hashable {
    /// Where it was found, for messages: `store`, `bundle /media/usb/models`, a URL.
    public var origin: String
    /// The file's bytes.
    public var data: Data

    /// A found signature.
    public init(origin: String, data: Data) {
        self.origin = origin
        self.data = data
    }
}

/// Where a locator looked for an artifact's signature and what it found.
public struct SignatureSearch: Sendable, Hashable {
    /// The signatures found, the preferred first.
    public var found: [FoundSignature]
    /// Each place that had none, with its answer (`https://…/model.sig: HTTP 404`).
    public var tried: [String]
    /// Whether a place could not be reached (connection, TLS, a stall): a retry may find a
    /// signature there, so a missing signature is then retryable.
    public var unreachable: Bool

    /// A search's result.
    public init(found: [FoundSignature] = [], tried: [String] = [], unreachable: Bool = false) {
        self.found = found
        self.tried = tried
        self.unreachable = unreachable
    }

    /// This search followed by `other`.
    public mutating func append(_ other: SignatureSearch) {
        found += other.found
        tried += other.tried
        unreachable = unreachable || other.unreachable
    }
}

/// Where `PublisherSignatureCheck` looks for an artifact's `model.sig`: a URL template
/// (`SignatureURLLocator`), or, in the sync agent, the store's copy, the bundles, mirrors and OCI
/// registries that carry signatures beside their blobs, then the template.
public protocol PublisherSignatureLocator: Sendable {
    /// The signatures that may be `candidate`'s (each is verified; any one that verifies is
    /// enough) and the places that had none. Throws only `CancellationError`: a place that
    /// cannot be reached is a line of `tried`.
    func signatures(for candidate: ArtifactCandidate) async throws -> SignatureSearch
}

/// A publisher signature that verified, and where it was found.
public struct VerifiedPublisherSignature: Sendable, Hashable {
    /// Who signed (key fingerprint or certificate subject; `signatureSHA256` set).
    public var signer: PublisherSigner
    /// The `model.sig` itself (the store keeps a copy, `export` carries it).
    public var signature: Data
    /// Where it was found.
    public var origin: String

    /// A verified signature.
    public init(signer: PublisherSigner, signature: Data, origin: String) {
        self.signer = signer
        self.signature = signature
        self.origin = origin
    }
}

/// The publisher-signature check (OpenSSF model signing), mechanism `model-signing`: a
/// candidate is accepted when one of the signatures its locator finds verifies against the
/// pinned keys and roots for its model id and digest (`PublisherSignatureVerifier`). A model whose
/// signature is `.optional` and for which none is found is accepted with evidence that says so
/// (`facts["signed"] == "false"`); a signature that is found and does not verify is refused
/// whatever the requirement (unless another one verifies).
///
/// The evidence's facts: `signed` (`true`/`false`), `signer` (`key sha256:…` or `certificate
/// CN=…`), `mode` (`key`/`certificate`), `name`, `keyFingerprint`, `issuer`, `signatureSHA256`
/// (the `model.sig` that verified) and `origin` (where it was found).
///
/// ```swift
/// var options = DownloadOptions()
/// options.trust = ArtifactTrustChain([PublisherSignatureCheck(
///     trust: PublisherTrust(keys: [try PublisherKey(contentsOf: Bundle.main.url(forResource: "publisher", withExtension: "pem")!)]),
///     locator: client.signatureLocator("https://signatures.example.com/{modelId}/{version}/model.sig"))])
/// let model = try await client.downloadModel("whisper-tiny", session: nil, expecting: nil, options: options)
/// ```
public struct PublisherSignatureCheck: ArtifactTrust {
    /// `model-signing`.
    public static let mechanism = "model-signing"
    /// The verifier with the pinned keys and roots.
    public let verifier: PublisherSignatureVerifier
    /// Where signatures are looked for.
    public let locator: any PublisherSignatureLocator
    /// The requirement of a model `requirements` does not name.
    public let requirement: SignatureRequirement
    /// Requirements by model id.
    public let requirements: [String: SignatureRequirement]
    /// The time certificates are checked at (now, by default).
    let now: @Sendable () -> Date

    /// A check of `trust`'s keys and roots on the signatures `locator` finds.
    public init(trust: PublisherTrust, locator: any PublisherSignatureLocator, requirement: SignatureRequirement = .required,
                requirements: [String: SignatureRequirement] = [:]) {
        self.init(trust: trust, locator: locator, requirement: requirement, requirements: requirements, now: { Date() })
    }

    init(trust: PublisherTrust, locator: any PublisherSignatureLocator, requirement: SignatureRequirement,
         requirements: [String: SignatureRequirement], now: @escaping @Sendable () -> Date) {
        verifier = PublisherSignatureVerifier(trust: trust)
        self.locator = locator
        self.requirement = requirement
        self.requirements = requirements
        self.now = now
    }

    /// Accepts `candidate` with the signature that verified (or, optional and unsigned, evidence
    /// saying so).
    /// - Throws: a `TrustRefusal` with reason `.publisherSignature`; `.unavailable("cancelled")`
    ///   when the task is cancelled.
    public func evaluate(_ candidate: ArtifactCandidate) async throws(TrustRefusal) -> TrustEvidence {
        let search: SignatureSearch
        do { search = try await locator.signatures(for: candidate) } catch {
            throw TrustRefusal(mechanism: Self.mechanism, modelId: candidate.modelId, version: candidate.version, reason: .unavailable("cancelled"))
        }
        var failures: [PublisherSignatureRefusal.Attempt] = []
        for found in search.found {
            do {
                let signer = try verifier.verify(found.data, modelId: candidate.modelId, sha256: candidate.sha256, at: now())
                return Self.evidence(signer, origin: found.origin)
            } catch {
                failures.append(PublisherSignatureRefusal.Attempt(origin: found.origin, failure: error))
            }
        }
        if failures.isEmpty && (requirements[candidate.modelId] ?? requirement) == .optional {
            let places = search.tried.isEmpty ? "nowhere to look" : search.tried.joined(separator: "; ")
            return TrustEvidence(mechanism: Self.mechanism, detail: "no publisher signature (its signature is optional): \(places)",
                                 facts: ["signed": "false"])
        }
        let refusal = PublisherSignatureRefusal(candidate: candidate, attempts: failures, tried: search.tried,
                                                isRetryable: failures.isEmpty && search.unreachable)
        throw TrustRefusal(mechanism: Self.mechanism, modelId: candidate.modelId, version: candidate.version,
                           reason: .publisherSignature(refusal))
    }

    /// The evidence of a signature by `signer` found at `origin`.
    static func evidence(_ signer: PublisherSigner, origin: String) -> TrustEvidence {
        var facts = ["signed": "true", "signer": signer.description, "mode": signer.mode.rawValue, "name": signer.name, "origin": origin]
        facts["keyFingerprint"] = signer.keyFingerprint
        facts["issuer"] = signer.issuer
        facts["signatureSHA256"] = signer.signatureSHA256
        return TrustEvidence(mechanism: mechanism, detail: "signed by \(signer) (model.sig from \(origin))", facts: facts)
    }

    /// The signer `evidence` of this check names (nil: not this check's, or unsigned).
    public static func signer(in evidence: TrustEvidence) -> PublisherSigner? {
        guard evidence.mechanism == mechanism, evidence.facts["signed"] == "true", let name = evidence.facts["name"],
              let mode = evidence.facts["mode"].flatMap(PublisherSigner.Mode.init(rawValue:)) else { return nil }
        return PublisherSigner(mode: mode, name: name, keyFingerprint: evidence.facts["keyFingerprint"], issuer: evidence.facts["issuer"],
                               signatureSHA256: evidence.facts["signatureSHA256"])
    }
}

/// Why the publisher-signature check refused a candidate (`TrustRefusal.Reason.publisherSignature`):
/// the model, its version and digest, the source of its bytes, each signature tried with what
/// failed (and who it names), and the places that had none.
public struct PublisherSignatureRefusal: Sendable, Hashable, CustomStringConvertible {
    /// One signature that was found and did not verify.
    public struct Attempt: Sendable, Hashable {
        /// Where it was found.
        public var origin: String
        /// What failed, and the signer it names when known.
        public var failure: PublisherSignatureFailure

        /// An attempt.
        public init(origin: String, failure: PublisherSignatureFailure) {
            self.origin = origin
            self.failure = failure
        }
    }

    /// The candidate refused.
    public var candidate: ArtifactCandidate
    /// The signatures that did not verify (empty: none was found).
    public var attempts: [Attempt]
    /// The places that had no signature, with their answers.
    public var tried: [String]
    /// Whether a retry may help (no signature was found and a place could not be reached).
    public var isRetryable: Bool

    /// A refusal.
    public init(candidate: ArtifactCandidate, attempts: [Attempt], tried: [String], isRetryable: Bool = false) {
        self.candidate = candidate
        self.attempts = attempts
        self.tried = tried
        self.isRetryable = isRetryable
    }

    /// The main problem: the first signature's, or `.missing` when none was found.
    public var problem: PublisherSignatureProblem {
        attempts.first?.failure.problem ?? .missing(tried.isEmpty ? "nowhere to look: no signature source is configured" : tried.joined(separator: "; "))
    }

    /// The signer the first signature names, when known.
    public var signer: PublisherSigner? { attempts.first?.failure.signer }

    /// `whisper-tiny 1.2.0 (sha256 9f86d081884c…, from registry): publisher signature refused: …`
    public var description: String {
        let head = "\(candidate.modelId) \(candidate.version) (sha256 \(candidate.sha256.prefix(12))…, from \(candidate.source)): publisher signature refused: "
        guard !attempts.isEmpty else { return head + problem.description }
        let each = attempts.map { "the signature from \($0.origin) \($0.failure.description)" }
        return head + each.joined(separator: "; ") + (tried.isEmpty ? "" : "; no signature at: \(tried.joined(separator: "; "))")
    }
}

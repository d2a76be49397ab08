import Foundation
import Manashiki
import ManashikiCore

/// Where a sync run looks for an artifact's publisher signature, in order:
///
/// 1. the store's copy (`<store>/.manashiki/signatures/<id>.sig`), when the state records it
///    for this very artifact: when it verifies with the pinned keys and roots, nothing else is
///    asked (a kept model is checked again with no request);
/// 2. each source, in the run's order, that lists a signature for the artifact in its index
///    (`PinnedArtifact.signature`): a bundle's blob, a mirror's or a bucket's blob, an OCI artifact's layer
///    (a source without a tag: the artifacts its tags hold, `OCISourceClient.signedEntries`),
///    each checked against the digest its index names (an entry of the same model id first);
/// 3. the manifest's `signatureURL` (not on an `--offline` run).
///
/// Every signature found is verified by `PublisherSignatureCheck`; the first that verifies wins.
/// A source that cannot be read is a line of `tried`, never an error of its own.
struct SyncSignatureLocator: PublisherSignatureLocator {
    let layout: StoreLayout
    /// The installed model's record (the stored copy is used only for its digest).
    let installed: @Sendable (String) -> StoreState.Installed?
    let fetcher: ArtifactFetcher
    let template: String?
    /// The pinned keys and roots: a store's copy that verifies with them is the answer, and no
    /// source or URL is asked (a kept model is checked again offline, with no request).
    let verifier: PublisherSignatureVerifier
    /// Bundle and bucket indexes read once per run, by label (nil: unreadable).
    let bundleIndexes = Locked<[String: BundleIndex?]>([:])
    /// Every signature found this run, by its SHA-256: the one that verified is kept in the
    /// store after the install (`SyncRun.keepSignature`).
    let seen = Locked<[String: Data]>([:])

    /// The signature of SHA-256 `sha256` found this run, if any.
    func found(_ sha256: String) -> Data? { seen.withLock { $0[sha256] } }

    func signatures(for candidate: ArtifactCandidate) async throws -> SignatureSearch {
        let search = try await search(candidate)
        seen.withLock { cache in
            for found in search.found { cache[SHA256Hasher.hash(found.data).hex] = found.data }
        }
        return search
    }

    private func search(_ candidate: ArtifactCandidate) async throws -> SignatureSearch {
        var search = SignatureSearch()
        if let entry = installed(candidate.modelId), entry.sha256 == candidate.sha256, let signer = entry.signer,
           let sha = signer.signatureSHA256, let data = StoredSignatures.read(candidate.modelId, sha256: sha, in: layout) {
            search.found.append(FoundSignature(origin: "store", data: data))
            if (try? verifier.verify(data, modelId: candidate.modelId, sha256: candidate.sha256)) != nil { return search }
        }
        for source in fetcher.sources where !(fetcher.offline && !source.source.servesOffline) {
            try Task.checkCancellation()
            let (references, none) = await self.references(candidate, in: source)
            guard !references.isEmpty else {
                search.tried.append("\(source.label): \(none?.text ?? "its index lists no signature for sha256 \(candidate.sha256.prefix(12))…")")
                search.unreachable = search.unreachable || none?.unreachable == true
                continue
            }
            for reference in references {
                switch await fetch(reference, from: source) {
                case .success(let data): search.found.append(FoundSignature(origin: "\(source.label) (\(BundleLayout.blobPath(reference.sha256)))", data: data))
                case .failure(let why):
                    search.tried.append("\(source.label): \(BundleLayout.blobPath(reference.sha256)) \(why)")
                    search.unreachable = search.unreachable || why.unreachable
                }
            }
        }
        if let template {
            if fetcher.offline {
                search.tried.append("signatureURL: not used (\(Remedy.offline) makes no network request)")
            } else if let client = fetcher.mirrorClient {
                search.append(try await SignatureURLLocator(template: template) { url in
                    try await client.fetchDocument(url, allowPlainHTTP: false, idleTimeout: fetcher.mirrorIdleTimeout, maxBytes: SignatureURLLocator.maximumSize)
                }.signatures(for: candidate))
            }
        }
        return search
    }

    /// The signatures `source`'s index lists for the candidate's digest, its own model's first;
    /// when there are none, why (nil: its index lists none).
    private func references(_ candidate: ArtifactCandidate, in source: ArtifactFetcher.ResolvedSource) async -> ([SignatureReference], SignatureFetchProblem?) {
        let entries: [PinnedArtifact]
        var none: SignatureFetchProblem?
        if let bundle = source.bundle {
            let index = bundleIndexes.withLock { cache -> BundleIndex? in
                if let cached = cache[source.label] { return cached }
                let read = try? BundleIndex.read(bundle)
                cache[source.label] = .some(read)
                return read
            }
            entries = index?.models.filter { $0.sha256 == candidate.sha256 } ?? []
        } else if let s3 = source.s3, let client = s3.client {
            entries = await bucketIndex(source.label, client: client, location: s3.settings.location)?.models.filter { $0.sha256 == candidate.sha256 } ?? []
        } else if let oci = source.oci {
            let signed = await oci.signedEntries(for: candidate.sha256)
            entries = signed.entries
            none = signed.note.map { SignatureFetchProblem($0, unreachable: signed.unreachable) }
        } else {
            entries = fetcher.indexEntries(source.label, candidate.sha256)
        }
        let ordered = entries.filter { $0.modelId == candidate.modelId } + entries.filter { $0.modelId != candidate.modelId }
        var seen = Set<String>()
        return (ordered.compactMap(\.signature).filter { seen.insert($0.sha256).inserted }, none)
    }

    /// A bucket's `index.json`, read once per run (nil: none or unreadable; the S3 source
    /// reports why).
    private func bucketIndex(_ label: String, client: S3Client, location: S3Location) async -> BundleIndex? {
        if let cached = bundleIndexes.withLock({ $0[label] }) { return cached }
        var index: BundleIndex?
        if let body = try? await client.getObject(location.indexKey, maxBytes: ArtifactFetcher.indexLimit) {
            index = try? BundleIndex.decode(body, location: "\(location.description)\(BundleLayout.indexName)")
        }
        bundleIndexes.withLock { $0[label] = .some(index) }
        return index
    }

    /// A signature blob from `source`, checked against its digest and size.
    private func fetch(_ reference: SignatureReference, from source: ArtifactFetcher.ResolvedSource) async -> Result<Data, SignatureFetchProblem> {
        let data: Data
        do {
            if let bundle = source.bundle {
                guard let read = FileManager.default.contents(atPath: bundle.blob(reference.sha256).path) else { return .failure(.init("is missing")) }
                data = read
            } else if let s3 = source.s3, let client = s3.client {
                guard let read = try await client.getObject(s3.settings.location.blobKey(reference.sha256), maxBytes: SignatureURLLocator.maximumSize) else {
                    return .failure(.init("is missing"))
                }
                data = read
            } else if let oci = source.oci, let client = oci.client {
                data = try await client.smallBlob(reference.sha256, maxBytes: SignatureURLLocator.maximumSize)
            } else if case .mirror(let base) = source.source.kind, let client = fetcher.mirrorClient {
                let (status, body) = try await client.fetchDocument(ArtifactSource.blobURL(base, reference.sha256), allowPlainHTTP: source.source.allowsPlainHTTP,
                                                                    idleTimeout: fetcher.mirrorIdleTimeout, maxBytes: SignatureURLLocator.maximumSize)
                guard status == 200 else { return .failure(.init("answered HTTP \(status)", unreachable: status >= 500 || status == 429)) }
                data = body
            } else {
                return .failure(.init("cannot be read by this client"))
            }
        } catch {
            return .failure(.init("could not be read (\(SyncFailure(error).message))", unreachable: true))
        }
        guard Int64(data.count) == reference.size, SHA256Hasher.hash(data).hex == reference.sha256 else {
            return .failure(.init("does not match the digest and size its index names (\(data.count) bytes, sha256 \(SHA256Hasher.hash(data).hex.prefix(12))…)"))
        }
        return .success(data)
    }
}

/// Why a signature blob listed by a source could not be used.
struct SignatureFetchProblem: Error {
    var text: String
    /// Whether the source could not be reached (a retry may help).
    var unreachable: Bool
    init(_ text: String, unreachable: Bool = false) {
        self.text = text
        self.unreachable = unreachable
    }
}

extension SignatureFetchProblem: CustomStringConvertible {
    var description: String { text }
}

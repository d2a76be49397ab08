import Foundation
import Manashiki

/// Publisher signatures from an OCI source (#36). `export oci://` pushes each model's
/// `model.sig` as a layer of media type `application/vnd.dev.sigstore.bundle.v0.3+json`, named
/// by the config's entry (`PinnedArtifact.signature`).
///
/// * A source with a tag: the tag's artifact, read before the plan, names them.
/// * A source **without a tag** has no artifact of its own (its blobs are asked for by digest):
///   the first time a run looks for a signature there, the repository's tags are listed (the
///   first `maxTagsSearched`) and each artifact of ours among them that carries a signature layer
///   is read (its manifest, then its config), once per run; a signature any of them names for
///   the model's digest is fetched and verified like any other. A tag of another kind, an
///   unreadable manifest or config is passed over.
extension OCISourceClient {
    /// How many tags a source without a tag has searched for signatures (one page of `tags/list`).
    static let maxTagsSearched = 100

    /// The index entries of this source for one digest that name a signature, or why there are none.
    struct SignedEntries: Sendable {
        var entries: [PinnedArtifact] = []
        /// Why none was found, for the refusal's list of places (nil: the usual "its index lists none").
        var note: String?
        /// The tags could not be listed (a retry may find a signature).
        var unreachable = false
    }

    /// What the artifacts a repository's tags hold name, read once per run.
    struct TaggedSignatures: Sendable {
        var entries: [PinnedArtifact] = []
        var tagsRead = 0
        var problem: String?
    }

    /// The entries naming a signature for `sha256`: the tag's artifact's; without a tag, those
    /// of the artifacts its tags hold (searched once per run, on first use).
    func signedEntries(for sha256: String) async -> SignedEntries {
        if let artifact { return SignedEntries(entries: artifact.index.models.filter { $0.sha256 == sha256 && $0.signature != nil }) }
        guard reference.tag == nil, unusable == nil, let client else { return SignedEntries() }
        let search = taggedSignatures.withLock { current -> Task<TaggedSignatures, Never> in
            if let current { return current }
            let made = Task { [reference] in await Self.searchTags(client, reference: reference) }
            current = made
            return made
        }
        let found = await search.value
        if let problem = found.problem { return SignedEntries(note: problem, unreachable: true) }
        let entries = found.entries.filter { $0.sha256 == sha256 }
        guard entries.isEmpty else { return SignedEntries(entries: entries) }
        let searched = found.tagsRead == Self.maxTagsSearched ? "its first \(found.tagsRead) tags" : "its \(found.tagsRead) tag(s)"
        return SignedEntries(note: "it has no tag, and no artifact \(searched) hold names a signature for sha256 \(sha256.prefix(12))… (give the source the \"tag\" export wrote)")
    }

    /// Lists the repository's tags and reads each artifact of ours that carries a signature layer.
    static func searchTags(_ client: OCIRegistryClient, reference: OCIReference) async -> TaggedSignatures {
        var result = TaggedSignatures()
        let tags: [String]
        do { tags = try await client.tags(limit: maxTagsSearched) } catch {
            result.problem = "it has no tag, and its tags could not be listed to find its signatures (\(SyncFailure(error).message))"
            return result
        }
        result.tagsRead = tags.count
        var seen = Set<String>()
        for tag in tags where !Task.isCancelled {
            let tagged = reference.with(tag: tag)
            guard let fetched = try? await client.manifest(tag: tag), seen.insert(fetched.digest).inserted,
                  let manifest = try? OCIArtifact.checkManifest(fetched.body, contentType: fetched.mediaType, reference: tagged),
                  manifest.layers.contains(where: { $0.mediaType == OCIMediaTypes.signatureLayer }),
                  let hex = OCIArtifact.digestHex(manifest.config.digest),
                  let config = try? await client.smallBlob(hex, maxBytes: ArtifactFetcher.indexLimit),
                  let artifact = try? OCIArtifact.assemble(manifest, manifestDigest: fetched.digest, config: config, reference: tagged) else { continue }
            result.entries += artifact.index.models.filter { $0.signature != nil }
        }
        return result
    }
}

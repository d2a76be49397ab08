import Foundation
import ManashikiCore
import Manashiki

/// An OCI repository as a source for one run (`{"oci": "HOST/REPO", "tag": "…"}`, `--from
/// oci://HOST/REPO:TAG`).
///
/// * Before the plan (`prepare`), the registry is reached once: the tag's manifest is read
///   and checked (our artifact type, else refused naming what it is) and its config, a bundle
///   index, read and verified; without a tag, `GET /v2/` checks that it answers and that the
///   login works. A registry that does not answer, refuses the credentials or lacks the
///   repository is not used this run: one warning, no request per model.
/// * **Online**, blobs are asked for by the catalog's or the lock's digest directly
///   (`GET /v2/REPO/blobs/sha256:…`), through the SDK's verified download path: redirects to blob
///   storage are followed with no credentials, `Range` resumes a kept partial, a registry that
///   ignores `Range` is read from the start again. A miss (404) falls through to the next source.
/// * **Offline** (`--offline`), the plan comes from the tag's artifact as from a bundle's
///   index, and its blobs are fetched from the registry (an air-gapped site's own registry is
///   the point: the Manashiki registry is not contacted and no key is needed).
final class OCISourceClient: Sendable {
    let reference: OCIReference
    let label: String
    let client: OCIRegistryClient?
    /// Downloads the blobs through the SDK's verified transfer, over the authenticating transport.
    let downloader: MirrorClient?
    private let state: Locked<State>
    /// Without a tag: the search of its tags for signatures, started on first use (once per run).
    let taggedSignatures = Locked<Task<TaggedSignatures, Never>?>(nil)

    enum State: Sendable {
        case unread
        /// The tag's artifact.
        case listed(OCIArtifact)
        /// No tag (or an unreadable one, online): blobs are asked for directly.
        case unlisted
        /// Not used this run.
        case unusable(any Error)
    }

    init(_ source: ArtifactSource, reference: OCIReference, label: String, transport: any HTTPTransport,
         environment: SyncEnvironment, baseDirectory: URL?, storeDirectory: URL, documentLimits: DocumentLimits = .default) {
        self.reference = reference
        self.label = label
        var made: (OCIRegistryClient, MirrorClient)?
        var failure: (any Error)?
        do {
            let found = try OCICredentials.lookup(reference, source: source.credentials, environment: environment, baseDirectory: baseDirectory)
            let client = OCIRegistryClient(reference, base: transport, found: found, push: false, allowPlainHTTP: source.allowsPlainHTTP,
                                           documentLimits: documentLimits)
            // No Manashiki key is ever held where an OCI registry's requests are made.
            made = (client, MirrorClient(transport: client.transport, store: storeDirectory, documentLimits: documentLimits))
        } catch {
            failure = error
        }
        client = made?.0
        downloader = made?.1
        state = Locked(failure.map { .unusable($0) } ?? .unread)
    }

    /// The tag's artifact, when it was read.
    var artifact: OCIArtifact? { if case .listed(let a) = state.current { return a } else { return nil } }

    /// Why it is not used this run, if it is not.
    var unusable: (any Error)? { if case .unusable(let e) = state.current { return e } else { return nil } }

    /// Whether it may hold `sha256`: the tag lists it, or there is no listing to ask.
    func mayHold(_ sha256: String) -> Bool {
        switch state.current {
        case .listed(let a): return a.index.artifact(sha256: sha256) != nil
        case .unlisted, .unread: return true
        case .unusable: return false
        }
    }

    /// Why it is not asked for any blob this run (it did not answer, refused the credentials,
    /// lacks the repository…), or nil. A blob its tag does not list is still asked for by
    /// digest: the repository may hold it under another tag.
    func excludes(_ sha256: String) -> String? {
        if case .unusable(let e) = state.current { return "not used this run (\(SyncFailure(e).message))" }
        return nil
    }

    /// Why the plan does not expect it to serve `sha256` (its tag does not list it), or nil.
    func notListed(_ sha256: String) -> String? {
        guard case .listed(let a) = state.current, a.index.artifact(sha256: sha256) == nil else { return nil }
        return "its tag \(reference.tag ?? "") does not list sha256 \(sha256.prefix(12))…"
    }

    /// Reaches the registry once, before the plan; returns the warnings to report.
    func prepare(offline: Bool) async -> [String] {
        if case .unusable(let error) = state.current { return ["\(label) is not used: \(SyncFailure(error).message)"] }
        guard let client else { return [] }
        guard let tag = reference.tag else {
            if offline {
                state.withLock { $0 = .unlisted }
                return ["\(label) has no tag, so an \(Remedy.offline) run cannot plan from it (give the source a \"tag\"); its blobs are still asked for by digest"]
            }
            do {
                try await client.ping()
                state.withLock { $0 = .unlisted }
                return []
            } catch {
                state.withLock { $0 = .unusable(error) }
                return ["\(label) is not used this run: \(SyncFailure(error).message)"]
            }
        }
        var warnings: [String] = []
        do {
            let (type, digest, body) = try await client.manifest(tag: tag)
            let manifest = try OCIArtifact.checkManifest(body, contentType: type, reference: reference)
            let hex = OCIArtifact.digestHex(manifest.config.digest) ?? ""
            let config = try await client.smallBlob(hex, maxBytes: ArtifactFetcher.indexLimit)
            let artifact = try OCIArtifact.assemble(manifest, manifestDigest: digest, config: config, reference: reference)
            for entry in artifact.unmatched {
                warnings.append("\(label): its config lists \(entry.modelId) \(entry.version) (sha256 \(entry.sha256.prefix(12))…) but the manifest has no layer of that digest and size; it is not used from this artifact — push it again with \(Remedy.export(to: "\(reference)"))")
            }
            state.withLock { $0 = .listed(artifact) }
        } catch let error as OCIError where !error.isConfigurationProblem && !offline {
            // Ours but unreadable (a newer config format…): the blobs may still be fine.
            state.withLock { $0 = .unlisted }
            warnings.append("\(label): \(error.description); its blobs are asked for by digest without the artifact's index")
        } catch {
            state.withLock { $0 = .unusable(error) }
            warnings.append("\(label) is not used this run: \(SyncFailure(error).message)")
        }
        return warnings
    }

    /// Downloads the blob `target` names as `<store>/<modelId>.bin`, verified.
    func download(_ modelId: String, target: ArtifactTarget, allowPlainHTTP: Bool, run: DownloadOptions, idleTimeout: TimeInterval,
                  progress: @escaping @Sendable (Int64, Int64?) -> Void) async throws -> DownloadedModel {
        if case .unusable(let error) = state.current { throw error }
        guard let client, let downloader else { throw SyncFailure(kind: .terminal, message: "\(label) is not configured") }
        let expected = ExpectedArtifact(sha256: target.sha256, size: target.size, version: target.version)
        return try await downloader.download(modelId, url: client.blobURL(target.sha256), allowPlainHTTP: allowPlainHTTP,
                                             expecting: expected, run: run, idleTimeout: idleTimeout, progress: progress)
    }
}

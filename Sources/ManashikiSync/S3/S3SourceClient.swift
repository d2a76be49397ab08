import Foundation
import ManashikiCore
import Manashiki

/// A bucket as a source for one run (`{"s3": "s3://bucket/prefix/", …}`, `--from s3://…`): a
/// mirror in object storage, in the same layout (`<prefix>index.json`,
/// `<prefix>blobs/sha256/<hex>`, and whatever else a mirror holds next to them, such as
/// signatures), read with the bucket's own credentials.
///
/// * Before the plan (`prepare`), `index.json` is read once with a signed `GetObject`
///   (`S3Client`: the bucket's region discovered and retried once, a skewed clock corrected once,
///   SlowDown and 5xx backed off). A bucket that refuses the credentials, does not exist or
///   cannot be reached is not used this run: one warning naming the operation, bucket, key,
///   status, S3 code and what to do; what it would serve comes from the next source (the
///   registry unless `"fallback": "none"`). A bucket without an index has its blobs asked for
///   directly, as a mirror.
/// * Blobs are fetched through the SDK's transfer engine (`ArtifactDownloader`): parallel ranged
///   GETs, adaptive connections, resume by part, the run's bandwidth cap and connection budget,
///   each request signed with Signature Version 4 just before it is sent (the location's `sign`
///   hook, `Range` included), credentials fetched again before they expire (and once more after
///   a 403, the location's `refresh` hook). The digest the catalog or lock names is the
///   authority, never the ETag (a multipart ETag is not a content hash).
/// * A blob request the bucket refuses (403, 400…) is asked once more through `S3Client` for the
///   store's error code, so the failure names it (`SignatureDoesNotMatch`, `AccessDenied`…).
final class S3SourceClient: Sendable {
    let settings: S3Settings
    let label: String
    /// Nil when the settings could not be used (an endpoint from the environment that is not a URL…).
    let client: S3Client?
    let transport: any HTTPTransport
    let storeDirectory: URL
    private let state: Locked<State>

    enum State: Sendable {
        case unread
        /// The digests `index.json` lists.
        case listed(Set<String>)
        /// No index: blobs are asked for directly.
        case unlisted
        /// Not used this run.
        case unusable(any Error)
    }

    init(_ settings: S3Settings, label: String, transport: any HTTPTransport, environment: SyncEnvironment,
         retry: RetryPolicy, storeDirectory: URL) {
        self.settings = settings
        self.label = label
        self.transport = transport
        self.storeDirectory = storeDirectory
        var made: S3Client?
        var failure: (any Error)?
        do { made = try S3Client.make(settings, environment: environment, transport: transport, retry: retry) } catch { failure = error }
        client = made
        state = Locked(failure.map { .unusable($0) } ?? .unread)
    }

    /// Why it is not used this run, if it is not.
    var unusable: (any Error)? { if case .unusable(let e) = state.current { return e } else { return nil } }

    /// Whether it may hold `sha256`: its index lists it, or there is no index to ask.
    func mayHold(_ sha256: String) -> Bool {
        switch state.current {
        case .listed(let held): return held.contains(sha256)
        case .unlisted, .unread: return true
        case .unusable: return false
        }
    }

    /// Whether its index lists `sha256`.
    func lists(_ sha256: String) -> Bool { if case .listed(let held) = state.current { return held.contains(sha256) } else { return false } }

    /// Why it is not asked for `sha256` this run (not used, or its index does not list it), or nil.
    func excludes(_ sha256: String) -> String? {
        switch state.current {
        case .unusable(let e): return "not used this run (\(SyncFailure(e).message))"
        case .listed(let held) where !held.contains(sha256): return "its \(BundleLayout.indexName) does not list sha256 \(sha256.prefix(12))…"
        default: return nil
        }
    }

    /// Where the requests' credentials came from (`environment`, `profile ci (…)`, `anonymous`…),
    /// never a secret.
    func credentialSource() async -> String {
        guard let client else { return "not used" }
        return await client.provider.sourceName
    }

    /// Reads `index.json` once, before the plan; returns the warnings to report.
    func prepare(offline: Bool) async -> [String] {
        if case .unusable(let error) = state.current { return ["\(label) is not used: \(SyncFailure(error).message)"] }
        guard let client else { return [] }
        if offline {
            state.withLock { $0 = .unusable(SyncFailure(kind: .terminal, message: "\(Remedy.offline) makes no network request")) }
            return ["\(label) is not used: \(Remedy.offline) makes no network request"]
        }
        let key = settings.location.indexKey
        do {
            guard let body = try await client.getObject(key, maxBytes: ArtifactFetcher.indexLimit) else {
                state.withLock { $0 = .unlisted }
                return ["\(label) has no \(BundleLayout.indexName) (HTTP 404 for \(key)) — write the bucket with \(Remedy.export(to: settings.location.description)); its blobs are requested without the index"]
            }
            do {
                let index = try BundleIndex.decode(body, location: "\(settings.location.description)\(BundleLayout.indexName)")
                state.withLock { $0 = .listed(Set(index.models.map(\.sha256))) }
                return []
            } catch {
                state.withLock { $0 = .unlisted }
                return ["\(label): \(error); until then its blobs are requested without the index"]
            }
        } catch is CancellationError {
            return []
        } catch {
            state.withLock { $0 = .unusable(error) }
            return ["\(label) is not used this run: \(SyncFailure(error).message) — what it would serve comes from the next source"]
        }
    }

    /// Downloads the blob of `target` as `<store>/<modelId>.bin`, verified against its digest.
    /// - Throws: the transfer's errors; an `S3Error` naming the store's code when the bucket
    ///   refused a blob request.
    func download(_ modelId: String, target: ArtifactTarget, run: DownloadOptions, idleTimeout: TimeInterval,
                  progress: @escaping @Sendable (Int64, Int64?) -> Void) async throws -> DownloadedModel {
        if case .unusable(let error) = state.current { throw error }
        guard let client else { throw SyncFailure(kind: .terminal, message: "\(label) is not configured") }
        let key = settings.location.blobKey(target.sha256)
        let expected = ExpectedArtifact(sha256: target.sha256, size: target.size, version: target.version)
        do {
            return try await ArtifactDownloader(transport: transport).download(modelId, from: location(key, client: client), expecting: expected,
                                                                               into: try StorageDirectory(url: storeDirectory),
                                                                               options: Self.options(run, idleTimeout: idleTimeout), progress: progress)
        } catch let error as APIError {
            throw await client.diagnosed(error, key: key)
        }
    }

    /// The blob's location: its URL as the endpoint now stands (region corrected by `prepare`),
    /// each request signed just before it is sent, for the bucket's host only. A 403 or 400 on a
    /// blob request (`refresh`, once per download) asks for one byte of the object through
    /// `S3Client.perform`, which corrects the region, the clock or expired credentials once each
    /// and throws the store's error (`S3Error`: `AccessDenied`, `SignatureDoesNotMatch`…) when
    /// the refusal stands; when it answers, the transfer goes on at the (possibly moved) URL.
    func location(_ key: String, client: S3Client) -> ArtifactLocation {
        let url = client.endpoint.url(bucket: client.bucket, key: key)
        return ArtifactLocation(url: url, allowsPlainHTTP: settings.allowsPlainHTTP || client.endpoint.scheme == "http", sign: { request in
            // Credentials go to the bucket's host only, never to where a redirect leads.
            guard request.url.host?.lowercased() == client.endpoint.url(bucket: client.bucket, key: nil).host?.lowercased() else { return request }
            return try await client.sign(request, payloadHash: SigV4Signer.emptyPayloadHash)
        }, refresh: { _ in
            try await client.probe(key)
            return client.endpoint.url(bucket: client.bucket, key: key)
        }, maxRefreshes: 1)
    }

    /// The transfer settings for buckets: a mirror's (a stall of `idleTimeout` moves on to the
    /// next source), with more resumptions and backoff for a store that says SlowDown or 503.
    static func options(_ run: DownloadOptions, idleTimeout: TimeInterval) -> DownloadOptions {
        var options = MirrorClient.options(run, idleTimeout: idleTimeout)
        options.maxResumes = 3
        options.resumeBackoff = 0.5
        options.maxURLRefreshes = 1
        return options
    }
}

extension S3Client {
    /// One byte of `key` through `perform` (the region, the clock and expired credentials
    /// corrected once each, SlowDown backed off).
    /// - Throws: `S3Error` when the store refuses it; a missing object is no error here (the
    ///   transfer reports its 404).
    func probe(_ key: String) async throws {
        _ = try await perform(Operation(name: "GetObject", key: key, headers: ["Range": "bytes=0-0", "Accept-Encoding": "identity"],
                                        accepts: [404, 416], maxBody: 64 << 10))
    }

    /// The S3 error behind a blob transfer's refusal (a 4xx other than 404 and 416) that
    /// `probe` did not already explain: the object asked for once more, so the failure names
    /// the store's code and what to do. Other errors, and a refusal that does not repeat, come
    /// back as they were.
    func diagnosed(_ error: APIError, key: String) async -> any Error {
        guard case .unexpectedStatus(let status, _) = error, (400..<500).contains(status), status != 404, status != 416 else { return error }
        do {
            try await probe(key)
            return error
        } catch {
            return error
        }
    }
}

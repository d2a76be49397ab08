import Foundation
import ManashikiCore
import Manashiki

/// The parts of the OCI distribution API the agent uses, for one repository, through an
/// authenticating `OCITransport`: `/v2/` (reachability and the login), manifests by tag, blobs
/// by digest (`HEAD` first), cross-repository mounts, and chunked, resumable uploads.
/// Every answer is checked here and mapped to an `OCIError` naming the registry.
struct OCIRegistryClient: Sendable {
    let reference: OCIReference
    let transport: OCITransport
    /// Plain http to a host other than this machine was allowed (`"allowHTTP": true`).
    let allowPlainHTTP: Bool
    var idleTimeout: TimeInterval = 30
    /// How long and how slowly the registry may send a manifest, a blob's head or a token
    /// (`policies.documents`); uploads (requests with a body) are not documents.
    let documentLimits: DocumentLimits

    /// A client for `reference` over `base` (the run's transport), with `scopes` (pull, or pull
    /// and push) and the credentials `found`.
    init(_ reference: OCIReference, base: any HTTPTransport, found: OCICredentials.Found, push: Bool, mountFrom: [String] = [],
         allowPlainHTTP: Bool, documentLimits: DocumentLimits = .default) {
        self.reference = reference
        self.allowPlainHTTP = allowPlainHTTP
        self.documentLimits = documentLimits
        let auth = OCIAuthenticator(reference: reference, found: found, transport: base, allowPlainHTTP: allowPlainHTTP, documentLimits: documentLimits)
        let scopes = ["repository:\(reference.repository):\(push ? "pull,push" : "pull")"] + mountFrom.map { "repository:\($0):pull" }
        transport = OCITransport(base: base, auth: auth, scopes: scopes)
    }

    var registryName: String { transport.auth.registryName }

    /// `https://host/v2/<repo>/<path>`.
    func url(_ path: String, query: [URLQueryItem] = []) -> URL {
        var c = URLComponents(url: reference.baseURL, resolvingAgainstBaseURL: false)!
        c.percentEncodedPath = "/v2/\(reference.repository)/\(path)"
        if !query.isEmpty { c.queryItems = query }
        return c.url!
    }

    /// The URL of a blob.
    func blobURL(_ sha256: String) -> URL { url("blobs/sha256:\(sha256)") }

    /// Sends one request (no redirect followed), checking the URL policy first.
    func send(_ method: String, _ url: URL, headers: HTTPHeaders = [:], body: Data? = nil, maxBytes: Int = 1 << 20) async throws -> HTTPResponse {
        if let reason = URLPolicy.refusal(for: url, allowingPlainHTTP: allowPlainHTTP) { throw APIError.refusedURL(reason) }
        var h: HTTPHeaders = ["User-Agent": ManashikiClient.userAgent, "Accept-Encoding": "identity"]
        for field in headers { h[field.name] = field.value }
        return try await transport.send(HTTPRequest(method: method, url: url, headers: h, body: body, idleTimeout: idleTimeout, maxBufferedBodyBytes: maxBytes,
                                                    documentLimits: body == nil ? documentLimits : nil))
    }

    /// A GET following at most 3 redirects with the SDK's one `RedirectPolicy` (to URLs the URL
    /// policy allows; credentials never follow to another origin: `OCITransport` strips them).
    func get(_ url: URL, accept: String, maxBytes: Int) async throws -> HTTPResponse {
        let policy = RedirectPolicy(peer: registryName, maxHops: 3, scope: .allowedURLs(allowingPlainHTTP: allowPlainHTTP))
        var url = url
        var hop = 0
        while true {
            let response = try await send("GET", url, headers: ["Accept": accept], maxBytes: maxBytes)
            guard RedirectPolicy.isRedirect(response.status) else { return response }
            hop += 1
            url = try policy.next(status: response.status, location: response.head.headers["Location"], from: url, hop: hop)
        }
    }

    /// `GET /v2/`: the registry answers (and the login, if any, works).
    func ping() async throws {
        var c = URLComponents(url: reference.baseURL, resolvingAgainstBaseURL: false)!
        c.path = "/v2/"
        let response = try await send("GET", c.url!)
        guard response.status == 200 else { throw error(response, "GET /v2/") }
    }

    /// The manifest the tag names: its media type, digest and bytes.
    /// - Throws: `OCIError.repositoryUnknown`, `.tagUnknown`, … naming the reference.
    func manifest(tag: String) async throws -> (mediaType: String, digest: String, body: Data) {
        let response = try await get(url("manifests/\(tag)"), accept: OCIMediaTypes.manifestAccept, maxBytes: 4 << 20)
        guard response.status == 200 else {
            let (code, _) = OCIErrorBody.parse(response.body)
            if response.status == 404 && code == "NAME_UNKNOWN" { throw OCIError.repositoryUnknown(reference.with(tag: tag)) }
            if response.status == 404 {
                // distribution answers MANIFEST_UNKNOWN for a repository it has never seen: ask its tag list.
                let tags = try? await send("GET", url("tags/list", query: [URLQueryItem(name: "n", value: "1")]))
                if let tags, tags.status == 404, OCIErrorBody.parse(tags.body).code == "NAME_UNKNOWN" { throw OCIError.repositoryUnknown(reference.with(tag: tag)) }
                throw OCIError.tagUnknown(reference.with(tag: tag))
            }
            throw error(response, "GET manifest \(tag)")
        }
        let type = (response.head.headers["Content-Type"] ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return (type, "sha256:" + SHA256Hasher.hash(response.body).hex, response.body)
    }

    /// The repository's tags (`GET tags/list?n=<limit>`: the first page, at most `limit`).
    /// - Throws: `OCIError` naming the registry; `DecodingError` for a list that is not one.
    func tags(limit: Int) async throws -> [String] {
        let response = try await get(url("tags/list", query: [URLQueryItem(name: "n", value: "\(limit)")]), accept: "application/json", maxBytes: 1 << 20)
        guard response.status == 200 else { throw error(response, "GET tags/list") }
        struct TagList: Decodable { var tags: [String]? }
        return Array((try StrictJSONDecoder().decode(TagList.self, from: response.body).tags ?? []).filter(OCIReference.isValidTag).prefix(limit))
    }

    /// A small blob (a config), verified against its digest.
    func smallBlob(_ sha256: String, maxBytes: Int) async throws -> Data {
        let response = try await get(blobURL(sha256), accept: "*/*", maxBytes: maxBytes)
        guard response.status == 200 else { throw error(response, "GET blob sha256:\(sha256.prefix(12))…") }
        let actual = SHA256Hasher.hash(response.body).hex
        guard actual == sha256 else { throw APIError.integrityMismatch(expected: sha256, actual: actual) }
        return response.body
    }

    /// The blob's size when the repository holds it (`HEAD`), nil when it does not.
    func blobSize(_ sha256: String) async throws -> Int64? {
        let response = try await send("HEAD", blobURL(sha256))
        switch response.status {
        case 200, 307, 302: return response.head.contentLength ?? -1
        case 404: return nil
        default: throw error(response, "HEAD blob sha256:\(sha256.prefix(12))…")
        }
    }

    /// How an upload starts.
    enum UploadStart: Sendable {
        /// The blob was mounted from another repository: nothing to send.
        case mounted
        /// An upload session; `minimumChunk` from `OCI-Chunk-Min-Length`.
        case session(URL, minimumChunk: Int64?)
    }

    /// `POST /v2/<repo>/blobs/uploads/`, asking to mount `sha256` from `from` when given.
    func startUpload(mounting sha256: String?, from: String?) async throws -> UploadStart {
        var query: [URLQueryItem] = []
        if let sha256, let from { query = [URLQueryItem(name: "mount", value: "sha256:\(sha256)"), URLQueryItem(name: "from", value: from)] }
        let request = url("blobs/uploads/", query: query)
        let response = try await send("POST", request, headers: ["Content-Length": "0"], body: Data())
        if response.status == 201 && sha256 != nil && from != nil { return .mounted }
        guard response.status == 202, let location = try? location(response, relativeTo: request) else {
            throw error(response, "POST blob upload")
        }
        return .session(location, minimumChunk: response.head.headers["OCI-Chunk-Min-Length"].flatMap { Int64($0) })
    }

    /// Where an interrupted upload stands: its next URL and the bytes the registry holds, or nil
    /// when it cannot be continued (expired, unknown, or refused as stale).
    func uploadStatus(_ session: URL) async throws -> (URL, Int64)? {
        let response = try await send("GET", session)
        guard response.status == 204 || response.status == 200 else {
            if [400, 404, 416].contains(response.status) { return nil }
            throw error(response, "GET upload status")
        }
        let next = (try? location(response, relativeTo: session)) ?? session
        guard let range = response.head.headers["Range"], let end = Self.rangeEnd(range) else { return (next, 0) }
        return (next, end)
    }

    /// `Range: 0-<last>` → the bytes held (`0-0` is read as 0 or 1 by `held`).
    static func rangeEnd(_ header: String) -> Int64? {
        let text = header.replacingOccurrences(of: "bytes=", with: "")
        let parts = text.split(separator: "-")
        guard parts.count == 2, parts[0] == "0", let last = Int64(parts[1]) else { return nil }
        return last + 1
    }

    /// `PATCH` one chunk at `offset`; returns the URL for the next request.
    func patch(_ session: URL, _ chunk: Data, at offset: Int64) async throws -> URL {
        let response = try await send("PATCH", session, headers: [
            "Content-Type": "application/octet-stream", "Content-Range": "\(offset)-\(offset + Int64(chunk.count) - 1)",
            "Content-Length": "\(chunk.count)",
        ], body: chunk)
        guard response.status == 202 else { throw error(response, "PATCH blob upload") }
        return (try? location(response, relativeTo: session)) ?? session
    }

    /// `PUT <session>?digest=…` with the last bytes (or none): the registry verifies the digest.
    func finishUpload(_ session: URL, sha256: String, last: Data) async throws {
        var c = URLComponents(url: session, resolvingAgainstBaseURL: false)!
        c.queryItems = (c.queryItems ?? []) + [URLQueryItem(name: "digest", value: "sha256:\(sha256)")]
        let response = try await send("PUT", c.url!, headers: ["Content-Type": "application/octet-stream", "Content-Length": "\(last.count)"], body: last)
        guard response.status == 201 || response.status == 204 else { throw error(response, "PUT blob sha256:\(sha256.prefix(12))…") }
    }

    /// `DELETE` an upload session (best effort: it also expires on its own).
    func cancelUpload(_ session: URL) async { _ = try? await send("DELETE", session) }

    /// `PUT /v2/<repo>/manifests/<tag>`; returns the digest the registry stored it under.
    func putManifest(_ body: Data, tag: String) async throws -> String {
        let response = try await send("PUT", url("manifests/\(tag)"), headers: ["Content-Type": OCIMediaTypes.imageManifest], body: body)
        guard response.status == 201 || response.status == 200 else { throw error(response, "PUT manifest \(tag)") }
        return response.head.headers["Docker-Content-Digest"] ?? "sha256:" + SHA256Hasher.hash(body).hex
    }

    private func location(_ response: HTTPResponse, relativeTo base: URL) throws -> URL {
        guard let text = response.head.headers["Location"], let url = URL(string: text, relativeTo: base)?.absoluteURL else {
            throw OCIError.registry(registry: registryName, operation: "an upload", status: response.status, code: nil, message: "no Location header")
        }
        return url
    }

    /// The error for an unexpected answer.
    func error(_ response: HTTPResponse, _ operation: String) -> OCIError {
        let (code, message) = OCIErrorBody.parse(response.body)
        if code == "NAME_UNKNOWN" { return .repositoryUnknown(reference) }
        return .registry(registry: registryName, operation: operation, status: response.status, code: code, message: message)
    }
}

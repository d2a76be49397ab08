import Foundation
import ManashikiCore

extension ManashikiClient {
    /// Most same-origin redirects an API request follows.
    static let maxRedirects = 5
    /// The most bytes of an API answer read (the catalog is the largest: about 150 bytes a
    /// model); checked on the declared length and while reading.
    package static let maxAnswerBytes = 16 << 20

    /// The URL of an API path, each segment percent-encoded as exactly one path segment.
    func apiURL(_ segments: [String]) -> URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)!
        var prefix = components.percentEncodedPath
        if prefix.hasSuffix("/") { prefix.removeLast() }
        components.percentEncodedPath = prefix + "/" + segments.map(Self.escapeSegment).joined(separator: "/")
        components.query = nil
        components.fragment = nil
        return components.url!
    }

    static func escapeSegment(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    /// Sends one API request with the key, follows same-origin redirects only, and maps any
    /// non-2xx answer to `APIError` (CONTRACT §4). `modelId` names the model in 404/410 errors.
    func performAPI(method: String = "GET", path: [String], body: Data? = nil, bearer: String? = nil, modelId: String? = nil) async throws -> HTTPResponse {
        var headers: HTTPHeaders = [
            "X-API-Key": apiKey.secret,
            "Accept": "application/json",
            "User-Agent": Self.userAgent,
        ]
        if body != nil { headers["Content-Type"] = "application/json" }
        if let bearer { headers["Authorization"] = "Bearer \(bearer)" }

        var request = HTTPRequest(method: method, url: apiURL(path), headers: headers, body: body, idleTimeout: 60,
                                  maxBufferedBodyBytes: Self.maxAnswerBytes, documentLimits: documentLimits)
        let redirects = RedirectPolicy.api(baseURL: baseURL)
        var hops = 0
        while true {
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
            } catch let error as APIError {
                throw redact(error, bearer: bearer)
            }
            guard RedirectPolicy.isRedirect(response.status) else {
                try check(response, modelId: modelId, bearer: bearer)
                return response
            }
            hops += 1
            let next = try redirects.next(status: response.status, location: response.head.headers["Location"], from: request.url, hop: hops)
            // The session token belongs to the download endpoint only (CONTRACT §3).
            if next.path != request.url.path { request.headers["Authorization"] = nil }
            request.url = next
            let method = RedirectPolicy.method(after: response.status, was: request.method)
            if method != request.method {
                request.method = method
                request.body = nil
                request.headers["Content-Type"] = nil
            }
        }
    }

    /// Maps a non-2xx answer to the typed error. The one place statuses become errors.
    ///
    /// A 404 is `modelNotFound(modelId)` (CONTRACT §4) only on a request about one model. On
    /// one that names no model (`GET /api/models`, sessions, uploads) there is no model to name:
    /// the base URL does not point at a registry's API, so it is `unexpectedStatus(404, …)`,
    /// whose text says to check the base URL (not `modelNotFound("")`, "No model \"\"…").
    func check(_ response: HTTPResponse, modelId: String?, bearer: String?) throws {
        let status = response.status
        guard !(200..<300).contains(status) else { return }
        let body = ErrorBody.decode(response.body)
        let message = body?.message.map { sanitize($0, bearer: bearer) }
        let code = body?.code
        switch (status, code) {
        case (400, _): throw APIError.badRequest(message ?? "bad request")
        case (401, "session_required"): throw APIError.sessionRequired
        case (401, "invalid_session"): throw APIError.invalidSession
        case (401, _): throw APIError.unauthorized
        case (403, _): throw APIError.forbiddenScope
        case (404, _):
            guard let modelId else {
                throw APIError.unexpectedStatus(status: 404, message: message ?? "no such endpoint at this base URL")
            }
            throw APIError.modelNotFound(modelId)
        case (410, _): throw APIError.modelSunset(modelId ?? "")
        case (429, _): throw APIError.rateLimited(retryAfter: RetryAfter.seconds(from: response.head.headers["Retry-After"]))
        case (500..<600, _): throw APIError.server(status: status, message: message)
        default: throw APIError.unexpectedStatus(status: status, message: message)
        }
    }

    /// Decodes a 2xx JSON body with the strict reader (`StrictJSONDecoder`: duplicate keys
    /// and documents beyond `JSONLimits` refused, as every reader of the package does), naming
    /// the failing field in the error.
    func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse, what: String) throws -> T {
        do {
            return try StrictJSONDecoder().decode(T.self, from: response.body)
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty && context.underlyingError is JSONSyntaxError {
            throw APIError.invalidResponse("\(what): not valid JSON (\(context.underlyingError!))")
        } catch let error as DecodingError {
            throw APIError.invalidResponse("\(what): \(DecodingErrorText.describe(error))")
        } catch {
            throw APIError.invalidResponse("\(what): not JSON")
        }
    }

    /// Removes secrets and control characters from server text and caps its length.
    func sanitize(_ text: String, bearer: String?) -> String {
        var s = text.replacingOccurrences(of: apiKey.secret, with: "[redacted]")
        if let bearer, !bearer.isEmpty { s = s.replacingOccurrences(of: bearer, with: "[redacted]") }
        s = String(s.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        return s.count > 300 ? String(s.prefix(300)) + "…" : s
    }

    /// Errors from the transport are already free of URLs; this also drops any secret.
    func redact(_ error: APIError, bearer: String?) -> APIError {
        switch error {
        case .transport(let text): return .transport(sanitize(text, bearer: bearer))
        case .invalidResponse(let text): return .invalidResponse(sanitize(text, bearer: bearer))
        case .registryDisagrees(let text): return .registryDisagrees(sanitize(text, bearer: bearer))
        default: return error
        }
    }
}

/// `{"error": {"code": "…", "message": "…"}}`.
struct ErrorBody: Decodable {
    struct Inner: Decodable { var code: String?; var message: String? }
    var error: Inner

    static func decode(_ data: Data) -> Inner? {
        guard !data.isEmpty else { return nil }
        return (try? StrictJSONDecoder().decode(ErrorBody.self, from: data))?.error
    }
}

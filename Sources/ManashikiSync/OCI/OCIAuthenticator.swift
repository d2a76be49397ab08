import Foundation
import ManashikiCore
import Manashiki

/// How one run authenticates to one OCI registry: anonymous, Basic, or the distribution
/// spec's token flow (`401` with `WWW-Authenticate: Bearer realm,service,scope` → a token from
/// the realm → the request again with `Authorization: Bearer`). Tokens are cached per scope for
/// the run (and fetched again once when the registry rejects an expired one); concurrent
/// requests share one token request.
///
/// Credentials (Basic, or the auth file's identity token; from a docker credential helper when
/// the auth file names one, asked only once the registry wants credentials) go only to the registry's own origin
/// and to the token service its challenge names (https, or http to this machine); never to a
/// redirect target such as blob storage (`OCITransport` strips them from any other origin).
/// Once the registry or its token service refused them, every later request of the run fails
/// at once with the same error: no retry storm against an account lockout.
actor OCIAuthenticator {
    /// The registry, for messages (`oci://host:port/repo`).
    let reference: OCIReference
    private(set) var credential: OCICredential?
    /// Why there are no credentials (a credential helper that failed…), for the 401 message.
    private(set) var note: String?
    /// The credential helper to ask when the registry wants credentials (asked once).
    private var found: OCICredentials.Found?
    /// The transport the token service is reached with (not the authenticating one).
    let transport: any HTTPTransport
    let allowPlainHTTP: Bool
    /// How long and how slowly the token service may answer.
    let documentLimits: DocumentLimits

    private var headers: [String: String] = [:]
    private var pending: [String: Task<String, any Error>] = [:]
    private var refusal: OCIError?
    /// Token requests made (tests read it: a refused login costs one).
    private(set) var tokenRequests = 0

    init(reference: OCIReference, found: OCICredentials.Found, transport: any HTTPTransport, allowPlainHTTP: Bool,
         documentLimits: DocumentLimits = .default) {
        self.reference = reference
        self.documentLimits = documentLimits
        credential = found.credential
        note = found.note
        self.found = found.helper != nil ? found : nil
        self.transport = transport
        self.allowPlainHTTP = allowPlainHTTP
    }

    /// The registry's origin (credentials go nowhere else, except its token service).
    nonisolated var origin: URL { reference.baseURL }

    /// `HOST[:PORT]` for messages.
    nonisolated var registryName: String { "registry \(reference.registry)" }

    /// The header to send for `scopes`, when one is known.
    func header(for scopes: [String]) throws -> String? {
        if let refusal { throw refusal }
        return headers[Self.key(scopes)]
    }

    /// A header after the registry answered 401 with `challenges` to a request that carried
    /// `rejected` (nil: none).
    func authorize(_ challenges: [OCIChallenge], scopes: [String], rejected: String?) async throws -> String {
        if let refusal { throw refusal }
        let key = Self.key(scopes)
        if let current = headers[key], current != rejected { return current } // another request refreshed it meanwhile
        headers[key] = nil
        if let running = pending[key] { return try await running.value }
        let task = Task { try await self.obtain(challenges, scopes: scopes) }
        pending[key] = task
        defer { pending[key] = nil }
        let header = try await task.value
        headers[key] = header
        return header
    }

    /// Records that the registry refused a header it asked for: every later request fails with this.
    func refuse(detail: String) -> OCIError {
        let why = [detail, credential == nil ? note : nil].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "; ")
        let error = OCIError.unauthorized(registry: registryName, credentials: credential?.origin, detail: why)
        refusal = error
        return error
    }

    private func obtain(_ challenges: [OCIChallenge], scopes: [String]) async throws -> String {
        if credential == nil, let helper = found {
            found = nil
            (credential, note) = await OCICredentials.fromHelper(helper, reference)
        }
        if let bearer = challenges.first(where: { $0.scheme == "bearer" }), let realm = bearer.realm {
            return "Bearer " + (try await token(realm: realm, service: bearer.service, scopes: Self.union(scopes, bearer.scope)))
        }
        if challenges.contains(where: { $0.scheme == "basic" }) || challenges.isEmpty {
            guard let credential, credential.identityToken == nil else { throw refuse(detail: "") }
            return credential.basicHeader
        }
        throw OCIError.registry(registry: registryName, operation: "a request", status: 401, code: nil,
                                message: "it asks for \(challenges.map(\.scheme).joined(separator: ", ")) authentication, which \(Remedy.agent) does not speak (Bearer and Basic only)")
    }

    /// Fetches a token from the token service (GET with Basic credentials, or POST with the
    /// identity token as an OAuth2 refresh token).
    private func token(realm: String, service: String?, scopes: [String]) async throws -> String {
        guard var components = URLComponents(string: realm), let realmURL = components.url, components.host != nil else {
            throw OCIError.tokenService(registry: registryName, realm: String(realm.prefix(200)), detail: "the challenge's realm is not an absolute URL")
        }
        if let reason = URLPolicy.refusal(for: realmURL, allowingPlainHTTP: allowPlainHTTP) {
            throw OCIError.tokenService(registry: registryName, realm: URLPolicy.origin(of: realmURL), detail: "its URL is not allowed (\(reason))")
        }
        tokenRequests += 1
        var headers: HTTPHeaders = ["User-Agent": ManashikiClient.userAgent, "Accept": "application/json"]
        var request: HTTPRequest
        if let refresh = credential?.identityToken {
            var form = URLComponents()
            // The OAuth client id is a fixed identifier on the wire, not words for a person.
            form.queryItems = [URLQueryItem(name: "grant_type", value: "refresh_token"), URLQueryItem(name: "refresh_token", value: refresh),
                               URLQueryItem(name: "client_id", value: "manashiki-sync")]
                + (service.map { [URLQueryItem(name: "service", value: $0)] } ?? []) + [URLQueryItem(name: "scope", value: scopes.joined(separator: " "))]
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            request = HTTPRequest(method: "POST", url: realmURL, headers: headers, body: Data((form.percentEncodedQuery ?? "").utf8), idleTimeout: 30, maxBufferedBodyBytes: 1 << 20, documentLimits: documentLimits)
        } else {
            var items = components.queryItems ?? []
            if let service { items.append(URLQueryItem(name: "service", value: service)) }
            items += scopes.map { URLQueryItem(name: "scope", value: $0) }
            components.queryItems = items
            if let credential { headers["Authorization"] = credential.basicHeader }
            request = HTTPRequest(url: components.url ?? realmURL, headers: headers, idleTimeout: 30, maxBufferedBodyBytes: 1 << 20,
                                  documentLimits: documentLimits)
        }
        let response = try await transport.send(request)
        switch response.status {
        case 200:
            struct Token: Decodable { var token: String?; var access_token: String? }
            guard let body = try? StrictJSONDecoder().decode(Token.self, from: response.body), let token = body.token ?? body.access_token,
                  !token.isEmpty, token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                throw OCIError.tokenService(registry: registryName, realm: URLPolicy.origin(of: realmURL), detail: "its answer holds no usable token")
            }
            return token
        case 401, 403:
            throw refuse(detail: "the token service \(URLPolicy.origin(of: realmURL)) answered \(response.status)")
        default:
            throw OCIError.tokenService(registry: registryName, realm: URLPolicy.origin(of: realmURL), detail: "it answered HTTP \(response.status)")
        }
    }

    static func key(_ scopes: [String]) -> String { scopes.sorted().joined(separator: " ") }

    /// Our scopes plus the challenge's (which may name what the request needs).
    static func union(_ scopes: [String], _ challenged: String?) -> [String] {
        var out = scopes
        for s in (challenged ?? "").split(separator: " ").map(String.init) where !out.contains(s) { out.append(s) }
        return out
    }
}

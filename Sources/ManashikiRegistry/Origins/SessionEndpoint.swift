import Foundation

/// `POST /api/session`: session tokens for private downloads, issued to `sk_live_` keys only.
struct SessionEndpoint {
    let state: RegistryState

    /// Answers a session request authenticated with `key`.
    func issue(_ request: ServerRequest, key: RegistryKey) -> ServerResponse {
        guard key.canIssueSessions else {
            let why = key.isServerKey ? "sessions are issued only for legacy sk_live_ keys" : "a publishable key cannot issue sessions"
            return .error(403, "forbidden_scope", why)
        }
        let body: [String: Any]
        switch JSONBody.object(request.body) {
        case .success(let o): body = o
        case .failure(let e): return .error(400, "bad_request", e.message)
        }
        guard let principal = body["principalId"] as? String, !principal.isEmpty else {
            return .error(400, "bad_request", "principalId must be a non-empty string")
        }
        guard let ttl = JSONBody.int(body["ttlSec"]), (60...86_400).contains(ttl) else {
            return .error(400, "bad_request", "ttlSec must be an integer between 60 and 86400")
        }
        let (token, expires) = state.issueSession(principalId: principal, ttl: ttl)
        return .json(200, ["token": token, "principalId": principal, "expiresAt": HTTPDate.iso8601(expires)])
    }
}

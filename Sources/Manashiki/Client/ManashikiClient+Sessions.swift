import Foundation

extension ManashikiClient {
    /// The shortest and longest session lifetimes the registry accepts, in seconds.
    public static let sessionTTLRange = 60...86_400

    /// Issues a session token for downloading private models (`POST /api/session`).
    ///
    /// Call this on your backend with a server key and hand `token` to the app, which passes it
    /// to `downloadModel(_:session:)`. Today the registry issues sessions only for legacy
    /// `sk_live_` keys; `mk_live_`/`mk_svc_` keys are answered `forbiddenScope`.
    ///
    /// ```swift
    /// let backend = try ManashikiClient(apiKey: serverKey)
    /// let session = try await backend.createSession(principalId: "doctor-abc123", ttlSec: 3600)
    /// ```
    /// - Throws: `APIError.forbiddenScope` without sending anything when the key is a
    ///   client-tier key; `.badRequest` without sending when `ttlSec` is outside 60…86400.
    public func createSession(principalId: String, ttlSec: Int = 3600) async throws -> ModelSession {
        guard apiKey.isServerKey else { throw APIError.forbiddenScope }
        guard Self.sessionTTLRange.contains(ttlSec) else {
            throw APIError.badRequest("ttlSec must be between 60 and 86400 seconds, not \(ttlSec)")
        }
        guard !principalId.isEmpty else { throw APIError.badRequest("principalId must not be empty") }
        let body = try JSONEncoder().encode(CreateSessionBody(principalId: principalId, ttlSec: ttlSec))
        let response = try await performAPI(method: "POST", path: ["api", "session"], body: body)
        return try decode(ModelSession.self, from: response, what: "POST /api/session")
    }
}

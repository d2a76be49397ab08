import Foundation
import Manashiki

/// The transport of one OCI registry: adds the run's `Authorization` to requests for the
/// registry's own origin (answering its 401 challenges through `OCIAuthenticator`) and
/// removes `Authorization` and `X-API-Key` from every other request (a redirect to blob
/// storage, a CDN). It never follows redirects itself: the caller does, so this is the one
/// place that decides which credentials go where.
struct OCITransport: HTTPTransport {
    /// The transport underneath (the run's TLS trust and proxy settings).
    let base: any HTTPTransport
    let auth: OCIAuthenticator
    /// The scopes requested (`repository:REPO:pull`, `…:pull,push`).
    let scopes: [String]

    /// The transport underneath's.
    var bodyBufferBudget: Int? { base.bodyBufferBudget }

    func stream(_ request: HTTPRequest, to consumer: any HTTPBodyConsumer) async throws {
        var request = request
        request.headers["X-API-Key"] = nil
        request.headers["Authorization"] = nil
        guard URLPolicy.sameOrigin(request.url, auth.origin) else { return try await base.stream(request, to: consumer) }
        let sent = try await auth.header(for: scopes)
        if let sent { request.headers["Authorization"] = sent }
        let first = ChallengeGate(consumer, auth: auth)
        do {
            return try await base.stream(request, to: first)
        } catch let challenge as ChallengeGate.Challenged {
            let header = try await auth.authorize(OCIChallenge.parse(challenge.head.headers.values(for: "WWW-Authenticate")), scopes: scopes, rejected: sent)
            request.headers["Authorization"] = header
            do {
                try await base.stream(request, to: ChallengeGate(consumer, auth: auth))
            } catch is ChallengeGate.Challenged {
                throw await auth.refuse(detail: "")
            }
        }
    }
}

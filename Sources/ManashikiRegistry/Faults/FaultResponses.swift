import Foundation
import ManashikiCore

/// Turns fired request-level faults into the answers given instead of the endpoint's (body
/// faults are carried out by `ResponseWriter`, from the same `RegistryFault.Kind`).
enum FaultResponses {
    /// The answer a request-level fault gives instead of the endpoint's, or nil.
    static func answer(for kind: RegistryFault.Kind?, request: ServerRequest, base: URL, origin: RegistryOrigin) -> ServerResponse? {
        switch kind {
        case .rateLimited(let retryAfter)?:
            var response = ServerResponse.error(429, "rate_limited", "too many requests (injected fault)")
            switch retryAfter {
            case .seconds(let s)?: response.headers.append(("Retry-After", String(s)))
            case .date(let d)?: response.headers.append(("Retry-After", HTTPDate.format(d)))
            case nil: break
            }
            return response
        case .status(let status)?:
            return .html(status)
        case .error(let status, let code, let message)?:
            return .error(status, code, message)
        case .redirect(let target, let status)?:
            var response = ServerResponse(status: status)
            response.headers.append(("Location", location(target, path: request.target, base: base)))
            response.headers.append(("Content-Type", "text/plain; charset=utf-8"))
            response.body = .data(Data("redirect (injected fault)\n".utf8))
            return response
        case .expiredURL(let status)? where origin == .storage:
            return .error(status, status == 410 ? "url_gone" : "url_expired", "the signed URL has expired (injected fault)")
        default:
            return nil
        }
    }

    /// The absolute URL a redirect target names, for `pathAndQuery` on the origin `base`.
    static func location(_ target: RegistryFault.RedirectTarget, path pathAndQuery: String, base: URL) -> String {
        switch target {
        case .otherOrigin:
            let host = base.host.map(LoopbackHost.isLocalhostName) == true ? "127.0.0.1" : "localhost"
            return "http://\(host):\(base.port ?? 80)\(pathAndQuery)"
        case .remoteHTTP:
            return "http://example.com\(pathAndQuery)"
        case .file:
            let path = pathAndQuery.split(separator: "?", maxSplits: 1).first.map(String.init) ?? "/"
            return "file:///tmp/manashiki-registry-redirect\(path)"
        case .url(let s):
            return s
        }
    }
}

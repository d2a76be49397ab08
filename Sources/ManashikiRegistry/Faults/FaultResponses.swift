import Foundation
import ManashikiCore

/// Turns fired faults into answers (request-level faults) or wire damage (body faults).
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

    /// The wire damage a body fault does, or nil.
    static func bodyFault(for kind: RegistryFault.Kind?) -> BodyFault? {
        switch kind {
        case .truncatedBody(let keep, let declare)?: .truncate(keep: keep.map(Int64.init), declareLength: declare)
        case .corruptByte(let offset)?: .corrupt(offset: offset.map(Int64.init))
        case .extraBytes(let count, let declare)?: .extra(count: count.map(Int64.init), declareLength: declare)
        case .noContentLength(let chunked)?: .noContentLength(chunked: chunked)
        case .slowDrip(let bytes, let ms)?: .slowDrip(chunkBytes: bytes, interval: Double(ms) / 1000)
        case .stall(let after)?: .stall(afterBytes: Int64(after))
        case .connectionReset(let after)?: .reset(afterBytes: Int64(after ?? 0), beforeHead: after == nil)
        case .expireMidBody(let after)?: .truncate(keep: Int64(after), declareLength: true)
        default: nil
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

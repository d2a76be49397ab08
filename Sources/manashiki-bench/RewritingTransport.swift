#if os(Linux)
import Foundation
import Manashiki

/// Sends storage-origin requests to another origin serving the same paths (nginx in the
/// benchmarks), so every tool downloads from the same server. API requests pass unchanged.
struct RewritingTransport: HTTPTransport {
    let base: any HTTPTransport
    let from: String
    let to: String

    var bodyBufferBudget: Int? { base.bodyBufferBudget }

    func stream(_ request: HTTPRequest, to consumer: any HTTPBodyConsumer) async throws {
        var r = request
        let s = request.url.absoluteString
        if s.hasPrefix(from) {
            // nginx ignores the signature in the query string.
            r.url = URL(string: to + s.dropFirst(from.count))!
        }
        try await base.stream(r, to: consumer)
    }
}
#endif

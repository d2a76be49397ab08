import Foundation
import ManashikiCore

/// Signs and checks storage URLs: `?exp=<unix seconds>&sig=<hex HMAC-SHA256>` over the
/// method, the path, the expiry and the status an expired URL is answered with.
struct URLSigner: Sendable {
    /// What checking a signed URL found.
    enum Verdict: Equatable {
        /// Signed and not expired.
        case valid
        /// Signed but expired: answer with this status (403, or 410 for `gone=1` URLs).
        case expired(status: Int)
        /// Missing or wrong signature.
        case invalid
    }

    private let key: [UInt8]

    init(secret: String) { key = Array(secret.utf8) }

    /// The query string (`exp=…&sig=…`, plus `gone=1` when an expired URL must answer 410).
    func query(method: String, path: String, expires: Int, gone: Bool = false) -> String {
        let sig = signature(method: method, path: path, expires: expires, gone: gone)
        return "exp=\(expires)" + (gone ? "&gone=1" : "") + "&sig=\(sig)"
    }

    /// Checks the query of a request to `path`.
    func verify(method: String, path: String, query: [String: String], now: Date = Date()) -> Verdict {
        guard let exp = query["exp"].flatMap({ Int($0) }), let sig = query["sig"] else { return .invalid }
        let gone = query["gone"] == "1"
        guard Hex.constantTimeEqual(sig, signature(method: method, path: path, expires: exp, gone: gone)) else { return .invalid }
        return Int(now.timeIntervalSince1970) <= exp ? .valid : .expired(status: gone ? 410 : 403)
    }

    private func signature(method: String, path: String, expires: Int, gone: Bool) -> String {
        HMACSHA256.hex(key: key, message: "\(method)\n\(path)\n\(expires)\n\(gone ? 1 : 0)")
    }
}

#if os(Linux)
import Foundation
import ManashikiCore

/// libcurl error codes as text that names the host, never the URL.
enum CurlErrorText {
    /// `port` is the URL's explicit port: a refused connection names it, since a wrong port is
    /// the usual cause (and, on this machine, a server that is not running).
    static func apiError(code: Int32, message: String, host: String, port: Int? = nil) -> APIError {
        let endpoint = port.map { host.contains(":") ? "[\(host)]:\($0)" : "\(host):\($0)" } ?? host
        switch code {
        case 6: return .transport("could not resolve \(host)")
        case 7:
            let loopback = LoopbackHost.matches(host)
            return .transport("could not connect to \(endpoint) (connection refused or unreachable)"
                              + (loopback ? ": nothing is listening there on this machine; start the server or check the port" : ""))
        case 28: return .transport("\(host) stopped sending data (timed out)")
        case 18: return .transport("the transfer from \(host) ended early")
        case 52: return .transport("\(host) closed the connection without answering")
        case 55, 56: return .transport("the connection to \(host) was lost (reset)")
        // OpenSSL's reason (SSL_R_WRONG_VERSION_NUMBER, the same words in 1.1 and 3.x) when the
        // first answer is no TLS record: a plain-http server on an https URL's port. libcurl has
        // no code of its own for it, so its message tells (docs/ARCHITECTURE.md, "Errors").
        // Terminal: asking again gets the same plain text.
        case 35 where message.contains("wrong version number"):
            return .invalidResponse("\(endpoint) does not speak TLS: it answered the https request in plain text; use http:// for it, or the port where it serves https")
        case 35, 51, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91:
            return .transport("the TLS connection to \(host) failed (certificate or protocol problem)")
        case 1: return .transport("the URL's protocol is not supported")
        case 8: return .transport("\(host) sent a malformed HTTP answer")
        default: return .transport("the request to \(host) failed (libcurl error \(code))")
        }
    }
}
#endif

#if os(Linux)
import Foundation
import CManashikiShims

extension CALocations {
    /// Calls `body` with these locations as libcurl options, and returns its result with what
    /// libcurl said of the server's certificate (filled only after a failed verification).
    func withCTLS<R>(_ body: (UnsafeMutablePointer<mk_curl_tls>) -> R) -> (result: R, peer: PeerCertificate) {
        var names = [CChar](repeating: 0, count: 512)
        var verifyResult = -1
        let result: R = withOptionalCString(file) { file in
            withOptionalCString(directory) { directory in
                withOptionalBytes(pem) { pem, pemLength in
                    names.withUnsafeMutableBufferPointer { buffer in
                        var tls = mk_curl_tls(ca_file: file, ca_path: directory, ca_blob: pem, ca_blob_length: pemLength,
                                              peer_names: buffer.baseAddress, peer_names_length: buffer.count, verify_result: -1)
                        let result = body(&tls)
                        verifyResult = tls.verify_result
                        return result
                    }
                }
            }
        }
        let text = String(decoding: names.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (result, PeerCertificate(names: text.trimmingCharacters(in: .whitespaces), verifyResult: verifyResult >= 0 ? verifyResult : nil))
    }
}

/// What libcurl said of a server certificate that did not verify.
struct PeerCertificate: Sendable, Hashable {
    /// The names it is valid for (its subjectAltName, else its subject); empty when unknown.
    var names = ""
    /// OpenSSL's verify result (`X509_V_ERR_*`); nil when libcurl's TLS backend is another.
    var verifyResult: Int?

    /// A certificate of the chain has expired (10) or is not yet valid (9).
    var dateInvalid: Bool { verifyResult == 9 || verifyResult == 10 }

    /// Whether it is valid for other names. libcurl checks the name itself before it reads
    /// OpenSSL's verdict, so a mismatch leaves the verify result at its initial `!X509_V_OK`
    /// (1; `curl -w %{ssl_verify_result}` shows it); OpenSSL's own `X509_V_ERR_HOSTNAME_MISMATCH`
    /// (62) and `X509_V_ERR_IP_ADDRESS_MISMATCH` (64) count too. Without a verify result
    /// (libcurl built with another TLS backend) its message is the only sign: the one place
    /// libcurl's TLS words are read.
    func namesOtherHost(message: String) -> Bool {
        if let verifyResult { return [1, 62, 64].contains(verifyResult) }
        return message.contains("subject name") && message.contains("match")
    }
}

extension CurlTransport {
    /// libcurl's built-in CA file (e.g. /etc/ssl/certs/ca-certificates.crt), asked once.
    static let systemCAFile: String? = {
        var buffer = [CChar](repeating: 0, count: 1024)
        guard mk_curl_default_ca_file(&buffer, buffer.count) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()
}

private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}

extension CurlErrorText {
    /// The terminal error for a certificate that does not verify, or nil when `code` is not
    /// one (libcurl-errors(3); 35, a failed handshake, stays a retryable transport error: a
    /// reset during the handshake reports it too).
    ///
    /// | code | libcurl name | here |
    /// |---|---|---|
    /// | 60 (51 before curl 7.62) | `CURLE_PEER_FAILED_VERIFICATION` | untrusted, or valid for other names |
    /// | 83 | `CURLE_SSL_ISSUER_ERROR` | untrusted |
    /// | 90 | `CURLE_SSL_PINNEDPUBKEYNOTMATCH` | untrusted |
    /// | 91 | `CURLE_SSL_INVALIDCERTSTATUS` (OCSP) | untrusted |
    /// | 77 | `CURLE_SSL_CACERT_BADFILE` | the CA file or directory could not be loaded |
    /// | 58 | `CURLE_SSL_CERTPROBLEM` | a local certificate could not be loaded |
    ///
    /// The reason is libcurl's message without its "SSL certificate problem: " prefix; it never
    /// contains the URL (a message that looks like it could is replaced).
    /// `peer`'s verify result (not libcurl's message) tells a certificate that expired or is
    /// not yet valid, and one valid for other names, from one whose issuer is not trusted.
    static func tlsError(code: Int32, message: String, host: String, peer: PeerCertificate, locations: CALocations) -> APIError? {
        var reason = message
        for prefix in ["SSL certificate problem: ", "SSL: "] where reason.hasPrefix(prefix) { reason.removeFirst(prefix.count) }
        if reason.contains("://") || reason.contains("?") { reason = "libcurl error \(code)" }
        if reason.isEmpty { reason = "libcurl error \(code)" }
        // A certificate whose issuer is not trusted (not one that expired or is not yet valid).
        let issuerUntrusted = [51, 60, 83].contains(code) && !peer.dateInvalid
        if issuerUntrusted, let bundle = locations.bundle {
            // With an explicit bundle, say it did not help: the advice to add a CA bundle is
            // then about this file (it may hold a server's certificate instead of its CA's).
            reason += "; the CA bundle \(bundle) does not hold the CA that issued it"
        } else if issuerUntrusted, let directory = locations.directory {
            // SSL_CERT_DIR: OpenSSL finds a CA there only through its hash-named link, so a
            // PEM file copied in without `openssl rehash` is not seen.
            reason += "; if its CA is in SSL_CERT_DIR (\(directory)), run `openssl rehash` on that directory (OpenSSL finds CAs there by hash-named links)"
        }
        switch code {
        case 51, 60:
            if peer.dateInvalid { return .certificateDateInvalid(host: host, reason: reason) }
            if peer.namesOtherHost(message: message) {
                return .certificateNameMismatch(host: host, validFor: readableNames(peer.names))
            }
            return .untrustedCertificate(host: host, reason: reason)
        case 83, 90, 91:
            return .untrustedCertificate(host: host, reason: reason)
        case 77:
            let file = locations.file.map { " CA file \($0)" } ?? ""
            let directory = locations.directory.map { " CA directory \($0)" } ?? ""
            let named = file.isEmpty && directory.isEmpty ? " system CA certificates" : file + (file.isEmpty || directory.isEmpty ? "" : " and") + directory
            return .caCertificatesUnusable("libcurl could not load the\(named) (\(reason))")
        case 58:
            return .caCertificatesUnusable("libcurl could not load a local certificate (\(reason))")
        default:
            return nil
        }
    }

    /// `other.example, 10.0.0.1` from OpenSSL's `DNS:other.example, IP Address:10.0.0.1`.
    static func readableNames(_ text: String) -> String {
        text.components(separatedBy: ",").map { $0.trimmingCharacters(in: .whitespaces) }.map { part in
            for prefix in ["DNS:", "IP Address:", "IP:"] where part.hasPrefix(prefix) { return String(part.dropFirst(prefix.count)) }
            return part
        }.filter { !$0.isEmpty }.joined(separator: ", ")
    }
}
#endif

#if os(Linux)
import Foundation
import Testing
@testable import Manashiki

/// libcurl's TLS error codes as the SDK reports them (libcurl-errors(3)).
@Suite("CurlTransport: TLS error codes")
struct CurlTransportTLSTests {
    static func map(_ code: Int32, _ message: String, names: String = "", verifyResult: Int? = nil) -> APIError? {
        CurlErrorText.tlsError(code: code, message: message, host: "h.example", peer: PeerCertificate(names: names, verifyResult: verifyResult),
                               locations: CALocations(file: "/etc/corp.pem"))
    }

    @Test("60 and 51: untrusted (curl's reason without its prefix) or valid for other names; 83/90/91 untrusted; 77/58 unusable CA settings; 35 and the rest stay transport errors")
    func codes() {
        #expect(Self.map(60, "SSL certificate problem: unable to get local issuer certificate")
                == .untrustedCertificate(host: "h.example", reason: "unable to get local issuer certificate"))
        #expect(Self.map(60, "SSL certificate problem: self-signed certificate in certificate chain")
                == .untrustedCertificate(host: "h.example", reason: "self-signed certificate in certificate chain"))
        #expect(Self.map(60, "SSL: no alternative certificate subject name matches target host name 'h.example'", names: "DNS:a.example, IP Address:10.0.0.1")
                == .certificateNameMismatch(host: "h.example", validFor: "a.example, 10.0.0.1"))
        #expect(Self.map(51, "SSL: certificate subject name 'x' does not match target host name 'h.example'", names: "")
                == .certificateNameMismatch(host: "h.example", validFor: ""))
        #expect(Self.map(90, "SSL: public key does not match pinned public key") == .untrustedCertificate(host: "h.example", reason: "public key does not match pinned public key"))
        #expect(Self.map(77, "error setting certificate verify locations") == .caCertificatesUnusable("libcurl could not load the CA file /etc/corp.pem (error setting certificate verify locations)"))
        #expect(Self.map(60, "see https://h.example/x?sig=secret") == .untrustedCertificate(host: "h.example", reason: "libcurl error 60"))
        for code: Int32 in [35, 7, 28, 56] { #expect(Self.map(code, "whatever") == nil) }
    }

    @Test("OpenSSL's verify result, not libcurl's words, decides: 10 (expired) and 9 (not yet valid) are a certificate date problem, 1 (libcurl's own name check failed) a name mismatch, 20 an untrusted issuer whatever the message says")
    func verifyResult() {
        #expect(Self.map(60, "SSL certificate problem: certificate has expired", verifyResult: 10)
                == .certificateDateInvalid(host: "h.example", reason: "certificate has expired"))
        #expect(Self.map(60, "SSL certificate problem: certificate is not yet valid", verifyResult: 9)
                == .certificateDateInvalid(host: "h.example", reason: "certificate is not yet valid"))
        #expect(Self.map(60, "SSL: no alternative certificate subject name matches target host name 'h.example'", names: "DNS:a.example", verifyResult: 1)
                == .certificateNameMismatch(host: "h.example", validFor: "a.example"))
        #expect(Self.map(60, "SSL certificate problem: the words say expired", verifyResult: 20)
                == .untrustedCertificate(host: "h.example", reason: "the words say expired"))
        #expect(Self.map(60, "SSL: certificate subject name 'x' does not match target host name 'h.example'", verifyResult: 20)
                == .untrustedCertificate(host: "h.example", reason: "certificate subject name 'x' does not match target host name 'h.example'"))
    }

    @Test("a plain-http server on an https URL (OpenSSL's 'wrong version number', 1.1 and 3.x): this server does not speak TLS, terminal; other handshake failures stay retryable",
          arguments: ["OpenSSL/3.0.22: error:0A00010B:SSL routines::wrong version number",
                      "error:1408F10B:SSL routines:ssl3_get_record:wrong version number"])
    func plainHTTPServer(message: String) {
        let error = CurlErrorText.apiError(code: 35, message: message, host: "127.0.0.1", port: 8080)
        #expect(error == .invalidResponse("127.0.0.1:8080 does not speak TLS: it answered the https request in plain text; use http:// for it, or the port where it serves https"))
        #expect(!error.isRetryable)
        let reset = CurlErrorText.apiError(code: 35, message: "OpenSSL SSL_connect: Connection reset by peer in connection to 127.0.0.1:8080", host: "127.0.0.1", port: 8080)
        #expect(reset.isRetryable, "\(reset)")
    }
}
#endif

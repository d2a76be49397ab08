import Foundation
import ManashikiTestSupport
import Testing
@testable import Manashiki

/// `TLSTrust` (reading a PEM bundle), `CALocations` (what libcurl is told, from the trust and
/// the environment) and the TLS errors' retryability and wording.
@Suite("TLSTrust, CALocations and the TLS errors")
struct TLSTrustTests {
    /// Two certificate blocks around other PEM blocks and text, as real bundles have.
    static let bundle = """
    # Corporate roots
    -----BEGIN CERTIFICATE-----
    AQID
    BAU=
    -----END CERTIFICATE-----
    -----BEGIN PRIVATE KEY-----
    /w==
    -----END PRIVATE KEY-----
    subject=CN = second
    -----BEGIN CERTIFICATE-----
    CgsM
    -----END CERTIFICATE-----
    """

    @Test("every CERTIFICATE block of a PEM file is read, in order, and nothing else, whatever its line breaks",
          arguments: ["\n", "\r\n"])
    func readsCertificates(_ lineBreak: String) throws {
        let scratch = ScratchDirectory("tlstrust")
        let dir = scratch.url
        let file = dir.appendingPathComponent("corp.pem")
        try Data(Self.bundle.replacingOccurrences(of: "\n", with: lineBreak).utf8).write(to: file)
        let trust = try TLSTrust(caBundle: file)
        #expect(trust.certificates == [Data([1, 2, 3, 4, 5]), Data([10, 11, 12])])
        #expect(trust.caBundle == file.standardizedFileURL)
        #expect(TLSTrust.system.caBundle == nil && TLSTrust.system.certificates.isEmpty)
    }

    @Test("a system-sized bundle: every block is read, a truncated last block and text between blocks are skipped")
    func largeBundle() {
        let blocks = (0..<150).map { n in Data((0..<900).map { UInt8(($0 + n) % 256) }) }
        var pem = "# 150 roots\n"
        for (n, der) in blocks.enumerated() {
            pem += "subject=CN = root \(n)\n-----BEGIN CERTIFICATE-----\n"
            pem += der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed]) + "\n-----END CERTIFICATE-----\n"
        }
        pem += "-----BEGIN CERTIFICATE-----\nAQID"   // cut off: no END line
        #expect(TLSTrust.certificates(inPEM: Data(pem.utf8)) == blocks)
        #expect(TLSTrust.certificates(inPEM: Data()).isEmpty)
        #expect(TLSTrust.certificates(inPEM: Data("-----BEGIN CERTIFICATE-----".utf8)).isEmpty)
    }

    @Test("a bundle that is missing, a directory, or without a certificate is refused with what is wrong",
          arguments: [("missing", "does not exist"), ("directory", "is a directory, not a PEM file"),
                      ("text", "holds no PEM certificate (no \"-----BEGIN CERTIFICATE-----\" block)"),
                      ("key only", "holds no PEM certificate (no \"-----BEGIN CERTIFICATE-----\" block)")])
    func refusesBadBundles(_ kind: String, _ problem: String) throws {
        let scratch = ScratchDirectory("tlstrust")
        let dir = scratch.url
        let file = dir.appendingPathComponent("ca.pem")
        switch kind {
        case "directory": try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        case "text": try Data("not a certificate\n".utf8).write(to: file)
        case "key only": try Data("-----BEGIN PRIVATE KEY-----\n/w==\n-----END PRIVATE KEY-----\n".utf8).write(to: file)
        default: break
        }
        #expect(throws: TLSTrust.BundleError(path: file.path, problem: problem)) { try TLSTrust(caBundle: file) }
        let error = TLSTrust.BundleError(path: file.path, problem: problem)
        #expect(error.errorDescription?.hasPrefix("The CA bundle \(file.path) \(problem).") == true)
    }

    @Test("CA locations: an explicit bundle wins over the environment; CURL_CA_BUNDLE over SSL_CERT_FILE/SSL_CERT_DIR; each variable sets its own slot; empty counts as unset")
    func locations() throws {
        let scratch = ScratchDirectory("tlstrust")
        let dir = scratch.url
        let a = dir.appendingPathComponent("a.pem"), b = dir.appendingPathComponent("b.pem")
        try Data(Self.bundle.utf8).write(to: a)
        try Data(Self.bundle.utf8).write(to: b)
        let bundle = try TLSTrust(caBundle: a)
        let pem = Data(Self.bundle.utf8) // files are read once, into PEM bytes
        let cases: [(TLSTrust, [String: String], CALocations)] = [
            (.system, [:], CALocations()),
            (.system, ["SSL_CERT_FILE": a.path], CALocations(file: a.path, pem: pem)),
            (.system, ["SSL_CERT_DIR": dir.path], CALocations(directory: dir.path)),
            (.system, ["SSL_CERT_FILE": a.path, "SSL_CERT_DIR": "\(dir.path):\(dir.path)"], CALocations(file: a.path, directory: "\(dir.path):\(dir.path)", pem: pem)),
            (.system, ["CURL_CA_BUNDLE": b.path, "SSL_CERT_FILE": a.path, "SSL_CERT_DIR": dir.path], CALocations(file: b.path, pem: pem)),
            (.system, ["CURL_CA_BUNDLE": "", "SSL_CERT_FILE": a.path], CALocations(file: a.path, pem: pem)),
            (bundle, ["CURL_CA_BUNDLE": b.path, "SSL_CERT_DIR": dir.path], CALocations(file: a.standardizedFileURL.path, pem: pem, bundle: a.standardizedFileURL.path)),
        ]
        for (trust, environment, expected) in cases {
            #expect(try CALocations.resolve(trust, environment: environment) == expected, "\(environment)")
        }
        // An explicit bundle adds to libcurl's own CA file: its PEM, then the system's.
        let system = dir.appendingPathComponent("system.pem")
        try Data("SYSTEM ROOTS\n".utf8).write(to: system)
        let added = try CALocations.resolve(bundle, environment: [:], systemCAFile: system.path)
        #expect(added == CALocations(file: a.standardizedFileURL.path, pem: Data((Self.bundle + "\nSYSTEM ROOTS\n").utf8), bundle: a.standardizedFileURL.path))
        #expect(try CALocations.resolve(.system, environment: [:], systemCAFile: system.path) == CALocations())
    }

    @Test("files are read once: a bundle (or SSL_CERT_FILE) replaced or removed after the trust and locations were made changes nothing until they are made again")
    func readOnce() throws {
        let scratch = ScratchDirectory("tlstrust")
        let dir = scratch.url
        let a = dir.appendingPathComponent("a.pem")
        try Data(Self.bundle.utf8).write(to: a)
        let trust = try TLSTrust(caBundle: a)
        let fromEnvironment = try CALocations.resolve(.system, environment: ["SSL_CERT_FILE": a.path])
        try FileManager.default.removeItem(at: a)
        let fromBundle = try CALocations.resolve(trust, environment: [:])
        #expect(fromBundle.pem == Data(Self.bundle.utf8), "the bundle was read again after it was removed")
        #expect(fromEnvironment.pem == Data(Self.bundle.utf8), "libcurl would read SSL_CERT_FILE on every request")
        // Made again (the next run): the removal is seen, and named.
        #expect(throws: TLSTrust.BundleError(path: a.path, problem: "does not exist")) { try TLSTrust(caBundle: a) }
    }

    @Test("a variable naming something unusable is an error naming the variable and the path",
          arguments: ["CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR"])
    func badVariables(_ variable: String) throws {
        let missing = "/nonexistent/manashiki-\(UUID().uuidString.prefix(6))"
        #expect(throws: APIError.self) { try CALocations.resolve(.system, environment: [variable: missing]) }
        do { _ = try CALocations.resolve(.system, environment: [variable: missing]) } catch {
            guard case .caCertificatesUnusable(let detail) = error else { Issue.record("\(error)"); return }
            #expect(detail.hasPrefix("\(variable) names \(missing), which "), "\(detail)")
            #expect(detail.hasSuffix("or unset it"))
            #expect(!error.isRetryable)
        }
    }

    @Test("TLS verification errors are terminal and say what to do; the host, never a URL")
    func errors() {
        let untrusted = APIError.untrustedCertificate(host: "models.corp.example", reason: "unable to get local issuer certificate")
        let mismatch = APIError.certificateNameMismatch(host: "10.0.0.5", validFor: "mirror.corp.example")
        let expired = APIError.certificateDateInvalid(host: "h.example", reason: "certificate has expired")
        for error in [untrusted, mismatch, expired, .caCertificatesUnusable("x")] {
            #expect(!error.isRetryable)
            #expect(error.httpStatus == nil)
        }
        #expect(untrusted.description == "The certificate of models.corp.example is not trusted: unable to get local issuer certificate. If models.corp.example uses a private or corporate CA, add its CA with `registry.caBundle` in the manifest, `--ca-bundle FILE`, or SSL_CERT_FILE (in code: `DefaultTransport(trust: TLSTrust(caBundle:))`).")
        #expect(mismatch.description.hasPrefix("The certificate of 10.0.0.5 is valid for mirror.corp.example, not 10.0.0.5. "))
        #expect(expired.description.contains("Check this machine's clock"))
        #expect(!ArtifactDownloader.isResumable(untrusted))
    }
}

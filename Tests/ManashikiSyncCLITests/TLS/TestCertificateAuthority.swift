#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import Testing

/// A certificate authority made with the `openssl` CLI in a scratch directory, and server
/// certificates it signs (EC P-256 keys, valid for two days), as a company's private CA or a
/// TLS-inspecting proxy would issue them.
struct TestCertificateAuthority {
    /// Where every key and certificate is (removed at `remove()` or with the last copy).
    let scratch: ScratchDirectory
    /// The scratch directory holding every key and certificate.
    var directory: URL { scratch.url }
    /// The CA's certificate (PEM): what a client must trust.
    var certificate: URL { directory.appendingPathComponent("ca.pem") }

    /// A new CA named `name` (tests using it require `.openssl`).
    static func make(name: String = "Manashiki Test CA") async throws -> TestCertificateAuthority {
        let ca = TestCertificateAuthority(scratch: ScratchDirectory("manashiki-ca"))
        try await ca.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                              "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=\(name)",
                              "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        return ca
    }

    /// A server certificate signed by this CA for `subjectAltName` (e.g.
    /// `IP:127.0.0.1,DNS:localhost`), valid for `days` from now (-1: it expired yesterday), and its key.
    func serverCertificate(_ name: String, subjectAltName: String, days: Int = 2) async throws -> (certificate: URL, key: URL) {
        let ext = "subjectAltName=\(subjectAltName)\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
        try Data(ext.utf8).write(to: directory.appendingPathComponent("\(name).ext"))
        try await openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                           "-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(name)"])
        try await openssl(["x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                           "-set_serial", "\(UInt32.random(in: 1...UInt32.max))", "-days", "\(days)",
                           "-extfile", "\(name).ext", "-out", "\(name).pem"])
        return (directory.appendingPathComponent("\(name).pem"), directory.appendingPathComponent("\(name).key"))
    }

    /// A directory holding only the CA certificate, prepared with `openssl rehash` (what
    /// `SSL_CERT_DIR` and CURLOPT_CAPATH expect).
    func hashedDirectory() async throws -> URL {
        let dir = directory.appendingPathComponent("hashed")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: certificate, to: dir.appendingPathComponent("ca.pem"))
        try await openssl(["rehash", dir.path])
        let entries = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        try #require(entries.contains { $0.hasSuffix(".0") }, "openssl rehash made no hash link: \(entries)")
        return dir
    }

    func remove() { scratch.remove() }

    private func openssl(_ arguments: [String]) async throws {
        let result = try await ExternalTool.run("openssl", arguments, in: directory)
        try #require(result.succeeded, "openssl \(arguments.joined(separator: " ")) failed: \(result.output)")
    }
}
#endif

import Testing
import Foundation
import ManashikiTestSupport
import Manashiki
@testable import ManashikiSync

/// `registry.caBundle`: parsed, resolved like the manifest's other paths, checked at load.
@Suite("Manifest: registry.caBundle")
struct ManifestTLSTests {
    static let pem = "-----BEGIN CERTIFICATE-----\nAQID\n-----END CERTIFICATE-----\n"

    static func manifest(caBundle: String) -> String {
        #"{"schemaVersion": 1, "registry": {"caBundle": \#(caBundle)}, "models": []}"#
    }

    @Test("a caBundle that is not a non-empty string names its path", arguments: ["3", "\"\"", "[\"a.pem\"]"])
    func badType(_ value: String) {
        do {
            _ = try Manifest.decode(Data(Self.manifest(caBundle: value).utf8))
            Issue.record("accepted \(value)")
        } catch let error as ManifestError {
            #expect(error.problems.map(\.path) == ["registry.caBundle"], "\(error)")
        } catch { Issue.record("\(error)") }
    }

    @Test("a relative caBundle resolves against the manifest's directory; the trust holds its certificates; none means the system's alone")
    func resolves() throws {
        let scratch = ScratchDirectory("manifest-tls")
        let dir = scratch.url
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("certs"), withIntermediateDirectories: true)
        try Data(Self.pem.utf8).write(to: dir.appendingPathComponent("certs/corp.pem"))
        let file = dir.appendingPathComponent("manashiki.json")
        try Data(Self.manifest(caBundle: #""certs/corp.pem""#).utf8).write(to: file)
        let manifest = try Manifest.load(contentsOf: file)
        #expect(manifest.registry.caBundle == "certs/corp.pem")
        #expect(manifest.caBundleFile == dir.appendingPathComponent("certs/corp.pem").standardizedFileURL)
        let trust = try manifest.tlsTrust()
        #expect(trust.certificates == [Data([1, 2, 3])])
        #expect(try manifest.defaultTransport().trust == trust)
        #expect(try Manifest(models: []).tlsTrust() == .system)
    }

    @Test("loading a manifest whose caBundle is missing or holds no certificate is a manifest error at registry.caBundle with the fix",
          arguments: [(nil, "does not exist"), ("hello\n", "holds no PEM certificate (no \"-----BEGIN CERTIFICATE-----\" block)")] as [(String?, String)])
    func refusedAtLoad(_ contents: String?, _ problem: String) throws {
        let scratch = ScratchDirectory("manifest-tls")
        let dir = scratch.url
        if let contents { try Data(contents.utf8).write(to: dir.appendingPathComponent("ca.pem")) }
        let file = dir.appendingPathComponent("manashiki.json")
        try Data(Self.manifest(caBundle: #""ca.pem""#).utf8).write(to: file)
        do {
            _ = try Manifest.load(contentsOf: file)
            Issue.record("loaded")
        } catch let error as ManifestError {
            let path = dir.appendingPathComponent("ca.pem").standardizedFileURL.path
            #expect(error.problems.count == 1)
            #expect(error.problems.first?.description.hasPrefix("registry.caBundle: \(path) \(problem); name a PEM file holding the CA certificate(s) to trust") == true, "\(error)")
        }
    }

    @Test("the Reconciler refuses a caBundle that cannot be used (a manifest decoded without a file)")
    func reconcilerRefuses() {
        var manifest = Manifest(models: [])
        manifest.registry.caBundle = "/nonexistent/manashiki-ca.pem"
        #expect(throws: ManifestError.self) { try Reconciler(manifest: manifest, apiKey: "mk_pub_demo_Kq7SecretKeyZ0123456789abcd") }
    }
}

import Testing
import Foundation
import Manashiki
@testable import ManashikiSync

/// `trust.modelSigning` and each model's `"signature"`: what decodes, and each mistake named with
/// its path and fix.
@Suite("Manifest: trust.modelSigning")
struct ModelSigningManifestTests {
    static func manifest(_ section: String?, model: String = #"{"id": "a"}"#) -> String {
        let trust = section.map { #", "trust": {"modelSigning": \#($0)}"# } ?? ""
        return #"{"schemaVersion": 1\#(trust), "models": [\#(model)]}"#
    }

    static func problems(_ json: String) -> [ManifestProblem] {
        do { _ = try Manifest.decode(Data(json.utf8)); return [] } catch let error as ManifestError { return error.problems } catch { return [] }
    }

    @Test("keys, roots, a signature URL, the subject binding and each model's requirement decode")
    func decodes() throws {
        let m = try Manifest.decode(Data(Self.manifest(#"""
            {"keys": [{"file": "/etc/manashiki/publisher-p256.pub.pem"}, {"pem": "-----BEGIN PUBLIC KEY-----\nAA==\n-----END PUBLIC KEY-----\n"}],
             "roots": [{"file": "ca.pem"}], "subject": "any", "default": "optional",
             "signatureURL": "https://signatures.example.com/{modelId}/{version}/model.sig"}
            """#, model: #"{"id": "a", "signature": "required"}, {"id": "b"}"#).utf8))
        let settings = try #require(m.trust.modelSigning)
        #expect(settings.keys == [.file("/etc/manashiki/publisher-p256.pub.pem"), .inline("-----BEGIN PUBLIC KEY-----\nAA==\n-----END PUBLIC KEY-----\n")])
        #expect(settings.roots == [.file("ca.pem")])
        #expect(settings.subject == .any)
        #expect(settings.defaultRequirement == .optional)
        #expect(m.models.map(\.signature) == [.required, nil])
        #expect(settings.signatureURL(modelId: "a", version: "1.0.0+build/7", sha256: "ab")?.absoluteString
                == "https://signatures.example.com/a/1.0.0+build%2F7/model.sig")
    }

    @Test("without the section there is no trust; the defaults are required and modelFile")
    func defaults() throws {
        #expect(try Manifest.decode(Data(Self.manifest(nil).utf8)).trust.modelSigning == nil)
        let settings = try #require(try Manifest.decode(Data(Self.manifest(#"{"keys": [{"file": "k.pem"}]}"#).utf8)).trust.modelSigning)
        #expect(settings.defaultRequirement == .required)
        #expect(settings.subject == .modelFile)
        #expect(settings.signatureURL == nil)
    }

    @Test("each mistake is named at its path with a fix", arguments: [
        (manifest(#"{}"#), "trust.modelSigning", "pins no publisher key"),
        (manifest(#"{"keys": {"file": "k.pem"}}"#), "trust.modelSigning.keys", "must be an array"),
        (manifest(#"{"keys": [{"file": "k.pem", "pem": "x"}]}"#), "trust.modelSigning.keys[0]", "exactly one of"),
        (manifest(#"{"keys": [{"path": "k.pem"}]}"#), "trust.modelSigning.keys[0].path", "unknown key"),
        (manifest(#"{"keys": [{"pem": "-----BEGIN EC PRIVATE KEY-----"}]}"#), "trust.modelSigning.keys[0].pem", "holds a private key"),
        (manifest(#"{"keys": [{"file": "k"}], "signatureURL": "http://signatures.example.com/{modelId}"}"#), "trust.modelSigning.signatureURL", "not an https URL"),
        (manifest(#"{"keys": [{"file": "k"}], "signatureURL": "https://s.example.com/{model}/model.sig"}"#), "trust.modelSigning.signatureURL", "placeholder other than"),
        (manifest(#"{"keys": [{"file": "k"}], "subject": "name"}"#), "trust.modelSigning.subject", "not a subject binding"),
        (manifest(#"{"keys": [{"file": "k"}], "default": "maybe"}"#), "trust.modelSigning.default", "not a signature requirement"),
        (manifest(#"{"keys": [{"file": "k"}], "key": []}"#), "trust.modelSigning.key", "did you mean \"keys\""),
        (manifest(#"{"keys": [{"file": "k"}]}"#, model: #"{"id": "a", "signature": "requird"}"#), "models[0].signature", "did you mean \"required\""),
        (manifest(nil, model: #"{"id": "a", "signature": "required"}"#), "models[0].signature", "needs a trust.modelSigning section"),
    ])
    func mistakes(json: String, path: String, says: String) {
        let found = Self.problems(json)
        #expect(found.contains { $0.path == path && $0.description.contains(says) }, "\(found)")
    }

    @Test("an http signature URL to this machine is allowed (the development registry, tests)")
    func loopback() throws {
        let m = try Manifest.decode(Data(Self.manifest(#"{"keys": [{"file": "k"}], "signatureURL": "http://127.0.0.1:8080/{sha256}.sig"}"#).utf8))
        #expect(m.trust.modelSigning?.signatureURL == "http://127.0.0.1:8080/{sha256}.sig")
    }
}

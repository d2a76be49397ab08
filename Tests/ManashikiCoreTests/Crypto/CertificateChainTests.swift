#if os(Linux) || os(macOS) // openssl runs as a child process
import Foundation
import ManashikiCore
import ManashikiTestSupport
import Testing

/// Chains made by `openssl` (a root, an intermediate, signing leaves), verified by
/// `CertificateChain` against pinned anchors: each refusal is its own case.
@Suite("X.509 chains against pinned roots", .serialized, .requires(.openssl, .modelSigning, .pyOpenSSL))
struct CertificateChainTests {
    let kit: PublisherSigningKit
    init() throws { kit = try PublisherSigningKit.make() }

    static func der(_ pem: URL) throws -> [UInt8] {
        try #require(try X509Certificate.certificates(pem: String(contentsOf: pem, encoding: .utf8)).first).der
    }

    /// A root, an intermediate (pathlen 0) and a leaf with `extensions`, valid as given.
    func chain(leafExtensions: String = PublisherSigningKit.signingExtensions, notBefore: Date = Date().addingTimeInterval(-3600),
               notAfter: Date = Date().addingTimeInterval(86400)) async throws -> (root: [UInt8], intermediate: [UInt8], leaf: [UInt8]) {
        let root = try await kit.rootCA("root")
        let intermediate = try await kit.issue("intermediate", by: root, extensions: PublisherSigningKit.intermediateExtensions)
        let leaf = try await kit.issue("publisher", by: intermediate, extensions: leafExtensions, notBefore: notBefore, notAfter: notAfter)
        return (try Self.der(root.certificate), try Self.der(intermediate.certificate), try Self.der(leaf.certificate))
    }

    @Test("A code-signing leaf through an intermediate to the pinned root verifies; its subject and key are read")
    func valid() async throws {
        let (root, intermediate, leaf) = try await chain()
        let verified = try CertificateChain.verify([leaf, intermediate], anchors: [root], at: Date())
        #expect(verified.subject == "CN=publisher, O=Manashiki Tests")
        #expect(verified.issuer == "CN=intermediate, O=Manashiki Tests")
        #expect(verified.keyUsage == 1)
        #expect(verified.extendedKeyUsage == [X509Certificate.codeSigning])
        #expect(verified.maySignCode && !verified.isCA)
        // A pinned intermediate is an anchor too (the path need not reach a self-signed root).
        #expect(try CertificateChain.verify([leaf], anchors: [intermediate], at: Date()).subject == verified.subject)
    }

    @Test("An expired signing certificate, and one not valid yet, are refused with their dates")
    func validity() async throws {
        let yesterday = Date().addingTimeInterval(-86400)
        let expired = try await chain(notBefore: yesterday.addingTimeInterval(-86400), notAfter: yesterday)
        #expect { try CertificateChain.verify([expired.leaf, expired.intermediate], anchors: [expired.root], at: Date()) } throws: { error in
            guard case CertificateChain.Failure.notValidNow(let subject, _, let notAfter) = error else { return false }
            return subject.hasPrefix("CN=publisher") && abs(notAfter.timeIntervalSince(yesterday)) < 2
        }
        let future = try await chain(notBefore: Date().addingTimeInterval(86400), notAfter: Date().addingTimeInterval(2 * 86400))
        #expect { try CertificateChain.verify([future.leaf, future.intermediate], anchors: [future.root], at: Date()) } throws: { error in
            if case CertificateChain.Failure.notValidNow = error { return true } else { return false }
        }
    }

    @Test("A leaf for TLS servers (keyEncipherment, serverAuth) may not sign models")
    func wrongUsage() async throws {
        let server = try await chain(leafExtensions: PublisherSigningKit.serverOnlyExtensions)
        #expect(throws: CertificateChain.Failure.wrongUsage(subject: "CN=publisher, O=Manashiki Tests", usage: "key usage keyEncipherment, extended key usage serverAuth")) {
            try CertificateChain.verify([server.leaf, server.intermediate], anchors: [server.root], at: Date())
        }
    }

    @Test("A chain to a root that is not pinned, or missing its intermediate, does not verify")
    func untrusted() async throws {
        let (_, intermediate, leaf) = try await chain()
        let other = try Self.der(try await kit.rootCA("other-root").certificate)
        #expect { try CertificateChain.verify([leaf, intermediate], anchors: [other], at: Date()) } throws: { error in
            if case CertificateChain.Failure.untrusted = error { return true } else { return false }
        }
        #expect(throws: CertificateChain.Failure.untrusted("no root is pinned")) { try CertificateChain.verify([leaf, intermediate], anchors: [], at: Date()) }
    }

    @Test("A leaf's bytes changed after issuing (its signature breaks) is invalid, never trusted")
    func tampered() async throws {
        let (root, intermediate, leaf) = try await chain()
        var changed = leaf
        // Flip a byte inside the subject's CN value ("publisher"), so it still parses.
        let index = try #require(changed.indices.first { changed[$0...].starts(with: Array("publisher".utf8)) })
        changed[index] ^= 0x20
        #expect { try CertificateChain.verify([changed, intermediate], anchors: [root], at: Date()) } throws: { error in
            guard let failure = error as? CertificateChain.Failure else { return false }
            if case .invalid = failure { return true }
            if case .untrusted = failure { return true }
            return false
        }
    }

    @Test("A PEM file with several certificates yields each; garbage is refused")
    func pemBundle() async throws {
        let root = try await kit.rootCA("root")
        let other = try await kit.rootCA("other")
        let text = try String(contentsOf: root.certificate, encoding: .utf8) + "comment\n" + String(contentsOf: other.certificate, encoding: .utf8)
        #expect(try X509Certificate.certificates(pem: text).map(\.subject) == ["CN=root, O=Manashiki Tests", "CN=other, O=Manashiki Tests"])
        #expect(throws: X509Error.self) { try X509Certificate(der: [0x30, 0x03, 0x02, 0x01, 0x00]) }
    }
}
#endif

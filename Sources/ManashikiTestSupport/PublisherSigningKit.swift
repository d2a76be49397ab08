#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing

/// Publisher signatures made the way publishers make them: EC keys and a CA chain made with the
/// `openssl` CLI, `model.sig` files written by upstream's own `model_signing sign key` and
/// `sign certificate` (PyPI `model-signing`, which needs `pyOpenSSL`; `scripts/test` installs both),
/// in a scratch directory. The formats upstream only still reads for compatibility, and keyless
/// bundles, are made by Python with upstream's own functions (`compatibilityBundle`,
/// `keylessBundle`).
package struct PublisherSigningKit: Sendable {
    /// Where every key, certificate and signature is.
    package let scratch: ScratchDirectory
    /// The scratch directory.
    package var directory: URL { scratch.url }

    /// A certificate and its private key.
    package struct Issued: Sendable {
        /// The certificate (PEM).
        package var certificate: URL
        /// Its private key (PEM).
        package var key: URL
    }

    /// The peers the kit runs; a test using it declares `.requires(.openssl, .modelSigning, .pyOpenSSL)`.
    package static let peers: [Peer] = [.openssl, .modelSigning, .pyOpenSSL]

    /// An empty kit. Throws `PeerMissing` (naming the packages) when openssl, model_signing or
    /// pyOpenSSL is missing: the tests require them, so this is a test without its `.requires`.
    package static func make() throws -> PublisherSigningKit {
        let missing = peers.filter { !$0.isInstalled }
        if !missing.isEmpty { throw PeerMissing(peers: missing) }
        return PublisherSigningKit(scratch: ScratchDirectory("manashiki-signing"))
    }

    /// A new EC key pair on `curve` (`P-256`, `P-384`, `P-521`): the private key and the public
    /// key's PEM file.
    package func key(_ name: String, curve: String = "P-256") async throws -> (privateKey: URL, publicKey: URL) {
        try await openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:\(curve)", "-out", "\(name).key"])
        try await openssl(["pkey", "-in", "\(name).key", "-pubout", "-out", "\(name).pub.pem"])
        return (file("\(name).key"), file("\(name).pub.pem"))
    }

    /// A self-signed root CA (P-256, basicConstraints CA, keyCertSign), valid for a year.
    package func rootCA(_ name: String) async throws -> Issued {
        try await openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                           "-keyout", "\(name).key", "-out", "\(name).pem", "-days", "365", "-subj", "/CN=\(name)/O=Manashiki Tests",
                           "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        return Issued(certificate: file("\(name).pem"), key: file("\(name).key"))
    }

    /// A certificate for `name` issued by `issuer` with the extensions given (one per line, as
    /// an openssl extension file), valid from `notBefore` to `notAfter`.
    package func issue(_ name: String, by issuer: Issued, curve: String = "P-256", extensions: String,
                       notBefore: Date = Date().addingTimeInterval(-3600), notAfter: Date = Date().addingTimeInterval(30 * 86400)) async throws -> Issued {
        try await openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:\(curve)", "-nodes",
                           "-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(name)/O=Manashiki Tests"])
        try Data(extensions.utf8).write(to: file("\(name).ext"))
        // `openssl ca` is the CLI that sets both validity dates (x509 -req only counts days from now).
        let db = try scratchDirectory("ca-\(name)")
        try Data().write(to: db.appendingPathComponent("index.txt"))
        try Data("\(String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16))\n".utf8).write(to: db.appendingPathComponent("serial"))
        let config = """
            [ca]
            default_ca = d
            [d]
            database = \(db.path)/index.txt
            new_certs_dir = \(db.path)
            serial = \(db.path)/serial
            default_md = sha256
            policy = p
            unique_subject = no
            [p]
            commonName = supplied
            organizationName = optional
            """
        try Data(config.utf8).write(to: db.appendingPathComponent("ca.cnf"))
        try await openssl(["ca", "-batch", "-notext", "-config", db.appendingPathComponent("ca.cnf").path,
                           "-cert", issuer.certificate.path, "-keyfile", issuer.key.path, "-in", "\(name).csr", "-out", "\(name).pem",
                           "-startdate", Self.asn1Time(notBefore), "-enddate", Self.asn1Time(notAfter), "-extfile", "\(name).ext"])
        return Issued(certificate: file("\(name).pem"), key: file("\(name).key"))
    }

    /// The extensions of an intermediate CA.
    package static let intermediateExtensions = "basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n"
    /// The extensions of a code-signing leaf (what a publisher's signing certificate has).
    package static let signingExtensions = "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=codeSigning\n"
    /// The extensions of a TLS server leaf: neither digitalSignature nor codeSigning.
    package static let serverOnlyExtensions = "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,keyEncipherment\nextendedKeyUsage=serverAuth\n"

    /// `model_signing sign key --private_key KEY --signature SIG FILE`.
    package func signWithKey(_ model: URL, privateKey: URL, signature: URL) async throws {
        try await modelSigning(["sign", "key", "--private_key", privateKey.path, "--signature", signature.path, model.path])
    }

    /// `model_signing sign certificate --private_key KEY --signing_certificate CERT
    /// [--certificate_chain CHAIN]… --signature SIG FILE`.
    package func signWithCertificate(_ model: URL, leaf: Issued, chain: [URL], signature: URL) async throws {
        try await modelSigning(["sign", "certificate", "--private_key", leaf.key.path, "--signing_certificate", leaf.certificate.path]
                               + chain.flatMap { ["--certificate_chain", $0.path] } + ["--signature", signature.path, model.path])
    }

    /// Runs upstream's verifier: `model_signing verify key --public_key KEY --signature SIG FILE`.
    package func verifyWithKey(_ model: URL, publicKey: URL, signature: URL) async throws -> ExternalTool.Result {
        try await ExternalTool.run("model_signing", ["verify", "key", "--public_key", publicKey.path, "--signature", signature.path, model.path], in: directory)
    }

    /// A bundle as model_signing before 1.0 wrote it, made with upstream's own compatibility
    /// functions: the v0.2 predicate `https://model_signing/Digests/v0.1` (`predicate: true`),
    /// or the v1.0 statement of `original` signed over upstream's `pae_compat` encoding.
    package func compatibilityBundle(from original: URL, privateKey: URL, oldPredicate: Bool, output: URL) async throws {
        try await python("""
            import base64, json, sys
            from cryptography.hazmat.primitives import serialization
            from cryptography.hazmat.primitives.asymmetric import ec
            from model_signing._signing import sign_sigstore_pb as pb
            from model_signing._signing import sign_ec_key as eck
            bundle = json.load(open(sys.argv[1]))
            payload = base64.b64decode(bundle["dsseEnvelope"]["payload"])
            if sys.argv[4] == "old":
                statement = json.loads(payload)
                digest = statement["predicate"]["resources"][0]["digest"]
                statement = {"_type": "https://in-toto.io/Statement/v1", "subject": [{"name": ".", "digest": {"sha256": digest}}],
                             "predicateType": "https://model_signing/Digests/v0.1", "predicate": {}}
                payload = json.dumps(statement).encode()
                encoded = pb.pae(payload)
            else:
                encoded = pb.pae_compat(payload)
            key = serialization.load_pem_private_key(open(sys.argv[2], "rb").read(), None)
            sig = key.sign(encoded, ec.ECDSA(eck.get_ec_key_hash(key.public_key())))
            bundle["dsseEnvelope"]["payload"] = base64.b64encode(payload).decode()
            bundle["dsseEnvelope"]["signatures"] = [{"sig": base64.b64encode(sig).decode(), "keyid": ""}]
            json.dump(bundle, open(sys.argv[3], "w"))
            """, [original.path, privateKey.path, output.path, oldPredicate ? "old" : "pae"])
    }

    /// `original` with the verification material of a keyless Sigstore signature: a single
    /// certificate (Fulcio's form) and a Rekor log entry, as `sigstore sign` writes them.
    package func keylessBundle(from original: URL, certificate: URL, output: URL) async throws {
        try await python("""
            import base64, json, sys
            from cryptography import x509
            from cryptography.hazmat.primitives import serialization
            bundle = json.load(open(sys.argv[1]))
            cert = x509.load_pem_x509_certificate(open(sys.argv[2], "rb").read()).public_bytes(serialization.Encoding.DER)
            bundle["verificationMaterial"] = {"certificate": {"rawBytes": base64.b64encode(cert).decode()},
                "tlogEntries": [{"logIndex": "25579", "logId": {"keyId": "wNI9atQGlz+VWfO6LRygH4QUfY/8W4RFwiT5i5WRgB0="},
                                 "kindVersion": {"kind": "dsse", "version": "0.0.1"}, "integratedTime": "1733000000"}]}
            json.dump(bundle, open(sys.argv[3], "w"))
            """, [original.path, certificate.path, output.path])
    }

    /// `directory/name`.
    package func file(_ name: String) -> URL { directory.appendingPathComponent(name) }

    private func scratchDirectory(_ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// `YYMMDDHHMMSSZ` (UTCTime), what `openssl ca -startdate` takes.
    static func asn1Time(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyMMddHHmmss"
        return formatter.string(from: date) + "Z"
    }

    private func openssl(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let result = try await ExternalTool.run("openssl", arguments, in: directory, sourceLocation: sourceLocation)
        try #require(result.succeeded, "openssl \(arguments.joined(separator: " ")) failed: \(result.output)", sourceLocation: sourceLocation)
    }

    private func modelSigning(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let result = try await ExternalTool.run("model_signing", arguments, in: directory, sourceLocation: sourceLocation)
        try #require(result.succeeded, "model_signing \(arguments.joined(separator: " ")) failed: \(result.output)", sourceLocation: sourceLocation)
    }

    private func python(_ script: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let result = try await ExternalTool.run("python3", ["-c", script] + arguments, in: directory, sourceLocation: sourceLocation)
        try #require(result.succeeded, "python3 failed: \(result.output)", sourceLocation: sourceLocation)
    }
}
#endif

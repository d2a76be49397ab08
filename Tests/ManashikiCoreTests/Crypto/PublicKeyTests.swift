#if os(Linux) || os(macOS) // the vectors come from the openssl command (ManashikiProcess: Linux and macOS)
import Foundation
import ManashikiCore
import ManashikiTestSupport
import Testing

/// Keys and signatures made in the test by the `openssl` command (a real, independent signer),
/// verified by `PublicKey`; then each part is damaged.
@Suite("Public-key signatures", .requires(.openssl))
struct PublicKeyTests {
    let openssl = OpenSSLSigner()

    @Test("a signature by openssl verifies; another message, a flipped bit, another key do not", arguments: [
        SignatureScheme.ed25519, .ecdsaP256SHA256, .ecdsaP384SHA384, .ecdsaP521SHA512, .rsaPSSSHA256,
    ])
    func roundTrip(scheme: SignatureScheme) throws {
        let signer = try openssl.newKey(scheme)
        let message = Array("{\"signed\":{\"_type\":\"root\"}}".utf8)
        let signature = try openssl.sign(message, with: signer)
        let key = try PublicKey(scheme: scheme, pem: signer.publicPEM)
        #expect(key.isValidSignature(signature, for: message))
        #expect(!key.isValidSignature(signature, for: message + [0x20]))
        var flipped = signature
        flipped[flipped.count / 2] ^= 0x01
        #expect(!key.isValidSignature(flipped, for: message))
        #expect(!key.isValidSignature([], for: message))
        let other = try PublicKey(scheme: scheme, pem: try openssl.newKey(scheme).publicPEM)
        #expect(!other.isValidSignature(signature, for: message))
    }

    @Test("ed25519 in TUF form: 64 hex digits, the same key as the PEM")
    func ed25519Hex() throws {
        let signer = try openssl.newKey(.ed25519)
        let message = Array("tuf".utf8)
        let signature = try openssl.sign(message, with: signer)
        let hex = Hex.encode(Array(signer.spkiDER.suffix(32)))
        let key = try PublicKey(scheme: .ed25519, tufPublic: hex)
        #expect(key.isValidSignature(signature, for: message))
        #expect(key.spkiDER == signer.spkiDER)
        #expect(throws: PublicKeyError.self) { try PublicKey(scheme: .ed25519, tufPublic: hex.uppercased()) }
        #expect(throws: PublicKeyError.self) { try PublicKey(scheme: .ed25519, tufPublic: String(hex.dropLast(2))) }
        #expect(throws: PublicKeyError.self) { try PublicKey(scheme: .ed25519, tufPublic: signer.publicPEM) }
    }

    @Test("ECDSA: the raw r||s form verifies when asked for; BER (a padded r) is refused", arguments: [
        SignatureScheme.ecdsaP256SHA256, .ecdsaP384SHA384, .ecdsaP521SHA512,
    ])
    func ecdsaEncodings(scheme: SignatureScheme) throws {
        let signer = try openssl.newKey(scheme)
        let message = Array("model bytes".utf8)
        let der = try openssl.sign(message, with: signer)
        let key = try PublicKey(scheme: scheme, pem: signer.publicPEM)
        let n = try #require(key.algorithm.coordinateLength)
        let (r, s) = try #require(Self.integers(der))
        let raw = Self.pad(r, n) + Self.pad(s, n)
        #expect(key.isValidSignature(raw, for: message, encoding: .raw))
        #expect(!key.isValidSignature(raw, for: message))
        #expect(!key.isValidSignature(der, for: message, encoding: .raw))
        // The same r and s with a needless leading zero in r: valid BER, not DER.
        let paddedR: [UInt8] = (r[0] & 0x80 != 0 ? [0, 0] : [0]) + r
        let sDER: [UInt8] = (s[0] & 0x80 != 0 ? [0] : []) + s
        let body: [UInt8] = [0x02, UInt8(paddedR.count)] + paddedR + [0x02, UInt8(sDER.count)] + sDER
        let ber: [UInt8] = body.count < 128 ? [0x30, UInt8(body.count)] + body : [0x30, 0x81, UInt8(body.count)] + body
        #expect(!key.isValidSignature(ber, for: message))
    }

    @Test("RSASSA-PSS: a 32-byte salt verifies; the maximal salt and a 20-byte salt do not (one rule on every platform)")
    func pssSaltLength() throws {
        let signer = try openssl.newKey(.rsaPSSSHA256)
        let message = Array("salt".utf8)
        let key = try PublicKey(scheme: .rsaPSSSHA256, pem: signer.publicPEM)
        #expect(key.isValidSignature(try openssl.sign(message, with: signer, pssSalt: "32"), for: message))
        #expect(!key.isValidSignature(try openssl.sign(message, with: signer, pssSalt: "max"), for: message))
        #expect(!key.isValidSignature(try openssl.sign(message, with: signer, pssSalt: "20"), for: message))
    }

    @Test("a key of another kind or curve than the scheme's is refused by name")
    func wrongKind() throws {
        let p384 = try openssl.newKey(.ecdsaP384SHA384)
        #expect(throws: PublicKeyError.wrongKind(scheme: "ecdsa-sha2-nistp256", found: "an EC P-384 key")) {
            try PublicKey(scheme: .ecdsaP256SHA256, pem: p384.publicPEM)
        }
        let ed = try openssl.newKey(.ed25519)
        #expect(throws: PublicKeyError.wrongKind(scheme: "rsassa-pss-sha256", found: "an Ed25519 key")) {
            try PublicKey(scheme: .rsaPSSSHA256, pem: ed.publicPEM)
        }
        #expect(throws: PublicKeyError.unsupportedScheme("rsa-pkcs1v15-sha256")) {
            try PublicKey(schemeName: "rsa-pkcs1v15-sha256", tufPublic: ed.publicPEM)
        }
    }

    @Test("an RSA key under 2048 bits is refused")
    func weakRSA() throws {
        let weak = try openssl.newKey(.rsaPSSSHA256, rsaBits: 1024)
        #expect(throws: PublicKeyError.self) { try PublicKey(scheme: .rsaPSSSHA256, pem: weak.publicPEM) }
    }

    @Test("PEM is read strictly: one PUBLIC KEY block, base64 lines, nothing else", arguments: [
        "no block at all",
        "-----BEGIN RSA PUBLIC KEY-----\nAAAA\n-----END RSA PUBLIC KEY-----\n",
        "-----BEGIN PUBLIC KEY-----\nProc-Type: 4,ENCRYPTED\nAAAA\n-----END PUBLIC KEY-----\n",
        "-----BEGIN PUBLIC KEY-----\n!!!!\n-----END PUBLIC KEY-----\n",
        "-----BEGIN PUBLIC KEY-----\nAAAA\n",
        "-----BEGIN PUBLIC KEY-----\n" + String(repeating: "QUFB\n", count: 3000) + "-----END PUBLIC KEY-----\n",
    ])
    func strictPEM(text: String) {
        #expect(throws: PublicKeyError.self) { try PublicKey(scheme: .ecdsaP256SHA256, pem: text) }
    }

    @Test("a second PEM block, trailing DER bytes or a compressed point are refused")
    func trailingData() throws {
        let signer = try openssl.newKey(.ecdsaP256SHA256)
        #expect(throws: PublicKeyError.self) { try PublicKey(scheme: .ecdsaP256SHA256, pem: signer.publicPEM + signer.publicPEM) }
        #expect(throws: PublicKeyError.self) { try PublicKey(scheme: .ecdsaP256SHA256, spki: signer.spkiDER + [0]) }
        var compressed = signer.spkiDER
        compressed[compressed.count - 65] = 0x02 // the point's form byte
        #expect(throws: PublicKeyError.self) { try PublicKey(scheme: .ecdsaP256SHA256, spki: compressed) }
        // CRLF line ends and surrounding blank lines are fine.
        let crlf = "\n\n" + signer.publicPEM.replacingOccurrences(of: "\n", with: "\r\n") + "\n"
        #expect(try PublicKey(scheme: .ecdsaP256SHA256, pem: crlf).spkiDER == signer.spkiDER)
    }

    @Test("truncating a SubjectPublicKeyInfo anywhere is refused, never a crash", arguments: [
        SignatureScheme.ed25519, .ecdsaP521SHA512, .rsaPSSSHA256,
    ])
    func truncation(scheme: SignatureScheme) throws {
        let der = try openssl.newKey(scheme).spkiDER
        for n in 0..<der.count {
            #expect(throws: PublicKeyError.self) { try PublicKey(scheme: scheme, spki: Array(der.prefix(n))) }
        }
    }

    private static func integers(_ der: [UInt8]) -> ([UInt8], [UInt8])? {
        var i = der[1] == 0x81 ? 3 : 2
        func next() -> [UInt8] {
            let length = Int(der[i + 1])
            defer { i += 2 + length }
            return Array(der[(i + 2)..<(i + 2 + length)].drop(while: { $0 == 0 }))
        }
        return (next(), next())
    }

    private static func pad(_ bytes: [UInt8], _ n: Int) -> [UInt8] { [UInt8](repeating: 0, count: n - bytes.count) + bytes }
}

/// Makes keys and signs with the `openssl` command in a scratch directory.
struct OpenSSLSigner {
    struct Key {
        let scheme: SignatureScheme
        let privatePath: String
        let publicPEM: String
        let spkiDER: [UInt8]
    }

    let scratch = ScratchDirectory("manashiki-openssl")

    func newKey(_ scheme: SignatureScheme, rsaBits: Int = 2048) throws -> Key {
        let name = UUID().uuidString
        let priv = scratch.file("\(name).key").path
        let options: [String] = switch scheme {
        case .ed25519: ["-algorithm", "ed25519"]
        case .ecdsaP256SHA256: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]
        case .ecdsaP384SHA384: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"]
        case .ecdsaP521SHA512: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-521"]
        case .rsaPSSSHA256: ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(rsaBits)"]
        }
        try run(["genpkey"] + options + ["-out", priv])
        try run(["pkey", "-in", priv, "-pubout", "-out", priv + ".pub"])
        try run(["pkey", "-in", priv, "-pubout", "-outform", "DER", "-out", priv + ".der"])
        return Key(scheme: scheme, privatePath: priv, publicPEM: try String(contentsOfFile: priv + ".pub", encoding: .utf8),
                   spkiDER: Array(try Data(contentsOf: URL(fileURLWithPath: priv + ".der"))))
    }

    func sign(_ message: [UInt8], with key: Key, pssSalt: String = "32") throws -> [UInt8] {
        let input = scratch.file(UUID().uuidString).path, output = input + ".sig"
        try Data(message).write(to: URL(fileURLWithPath: input))
        switch key.scheme {
        case .ed25519:
            try run(["pkeyutl", "-sign", "-rawin", "-inkey", key.privatePath, "-in", input, "-out", output])
        case .ecdsaP256SHA256: try run(["dgst", "-sha256", "-sign", key.privatePath, "-out", output, input])
        case .ecdsaP384SHA384: try run(["dgst", "-sha384", "-sign", key.privatePath, "-out", output, input])
        case .ecdsaP521SHA512: try run(["dgst", "-sha512", "-sign", key.privatePath, "-out", output, input])
        case .rsaPSSSHA256:
            try run(["dgst", "-sha256", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:\(pssSalt)",
                     "-sigopt", "rsa_mgf1_md:sha256", "-sign", key.privatePath, "-out", output, input])
        }
        return Array(try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    private func run(_ arguments: [String]) throws {
        let result = RunningChild.run(try Peer.openssl.require(), arguments, in: scratch.url)
        guard result.status == 0 else { throw OpenSSLFailure(message: "openssl \(arguments.joined(separator: " ")): \(result.all)") }
    }

    struct OpenSSLFailure: Error, CustomStringConvertible { let message: String; var description: String { message } }
}
#endif

import Foundation

/// A public key bound to the one signature scheme it verifies: the package's one way to check
/// a public-key signature (TUF metadata, publisher signatures). Parsing is strict and bounded
/// (`SubjectPublicKeyInfo`, `PEMBlock`); verification runs in the platform's engine (OpenSSL's
/// libcrypto on Linux, CryptoKit and Security on Apple platforms, `SignatureEngine`).
///
/// ```swift
/// let key = try PublicKey(scheme: .ecdsaP256SHA256, pem: pemText)
/// let ok = key.isValidSignature(signatureBytes, for: Array(message.utf8))
/// ```
package struct PublicKey: Sendable, Hashable {
    /// The scheme this key verifies.
    package let scheme: SignatureScheme
    let info: SubjectPublicKeyInfo

    /// A key from its SubjectPublicKeyInfo in DER, for `scheme`.
    package init(scheme: SignatureScheme, spki der: [UInt8]) throws(PublicKeyError) {
        try self.init(scheme: scheme, info: SubjectPublicKeyInfo(der: der))
    }

    /// A key from a PEM `PUBLIC KEY` block (SubjectPublicKeyInfo), for `scheme`.
    package init(scheme: SignatureScheme, pem: String) throws(PublicKeyError) {
        try self.init(scheme: scheme, spki: PEMBlock.decode(pem, label: "PUBLIC KEY"))
    }

    /// An Ed25519 key from its 32 raw bytes.
    package init(ed25519 raw: [UInt8]) throws(PublicKeyError) {
        try self.init(scheme: .ed25519, info: SubjectPublicKeyInfo(ed25519: raw))
    }

    /// A key as TUF writes it in `keyval.public`: 64 lowercase hex digits for `ed25519`, a PEM
    /// SubjectPublicKeyInfo for the ECDSA and RSA schemes (what securesystemslib writes).
    package init(scheme: SignatureScheme, tufPublic value: String) throws(PublicKeyError) {
        if scheme == .ed25519 {
            guard value.utf8.count == 64, let raw = Hex.decode(value) else {
                throw .malformed("an ed25519 key in TUF is 64 hex digits")
            }
            try self.init(ed25519: raw)
        } else {
            try self.init(scheme: scheme, pem: value)
        }
    }

    /// A key whose scheme is named by its string (`"ecdsa-sha2-nistp256"`).
    package init(schemeName: String, tufPublic value: String) throws(PublicKeyError) {
        guard let scheme = SignatureScheme(rawValue: schemeName) else { throw .unsupportedScheme(schemeName) }
        try self.init(scheme: scheme, tufPublic: value)
    }

    private init(scheme: SignatureScheme, info: SubjectPublicKeyInfo) throws(PublicKeyError) {
        guard info.algorithm == scheme.algorithm else {
            throw .wrongKind(scheme: scheme.rawValue, found: "an \(info.algorithm.rawValue) key")
        }
        self.scheme = scheme
        self.info = info
    }

    /// The kind of key.
    package var algorithm: PublicKeyAlgorithm { info.algorithm }

    /// The SubjectPublicKeyInfo, DER.
    package var spkiDER: [UInt8] { info.der }

    /// Whether `signature` is this key's signature of `message` under its scheme. A signature of
    /// the wrong shape (length, encoding) is `false`, never an error. `encoding` applies to the
    /// ECDSA schemes only.
    package func isValidSignature(_ signature: [UInt8], for message: [UInt8], encoding: ECDSASignatureEncoding = .der) -> Bool {
        guard signature.count <= 2048 else { return false }
        var bytes = signature
        if let n = algorithm.coordinateLength {
            if encoding == .raw {
                guard signature.count == 2 * n else { return false }
                bytes = DERWriter.sequence(ofUnsignedIntegers: [signature[0..<n], signature[n...]])
            } else if !Self.isCanonicalECDSA(signature, coordinateLength: n) {
                return false
            }
        }
        return SignatureEngine.verify(self, signature: bytes, message: message)
    }

    /// DER `SEQUENCE {INTEGER r, INTEGER s}`, minimal, positive, no longer than the curve's order.
    private static func isCanonicalECDSA(_ signature: [UInt8], coordinateLength n: Int) -> Bool {
        var outer = DERReader(signature)
        guard var pair = try? outer.sequence(what: "ECDSA signature"), outer.isAtEnd,
              let r = try? pair.unsignedInteger(what: "r"), let s = try? pair.unsignedInteger(what: "s"),
              pair.isAtEnd else { return false }
        return !r.isEmpty && !s.isEmpty && r.count <= n && s.count <= n
    }
}

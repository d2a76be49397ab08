/// A public-key signature scheme, named as TUF and securesystemslib name it (the `scheme` of a
/// key in TUF metadata). What is signed is the message itself: each scheme hashes it as it says.
///
/// | scheme | key | signature |
/// | --- | --- | --- |
/// | `ed25519` | 32 raw bytes (TUF: 64 hex digits) | 64 bytes (RFC 8032) |
/// | `ecdsa-sha2-nistp256` | P-256 SubjectPublicKeyInfo (PEM) | DER `SEQUENCE {r, s}`, SHA-256 |
/// | `ecdsa-sha2-nistp384` | P-384 SubjectPublicKeyInfo (PEM) | DER, SHA-384 |
/// | `ecdsa-sha2-nistp521` | P-521 SubjectPublicKeyInfo (PEM) | DER, SHA-512 |
/// | `rsassa-pss-sha256` | RSA SubjectPublicKeyInfo (PEM), 2048–8192 bits | RSASSA-PSS, SHA-256, MGF1-SHA-256, 32-byte salt |
///
/// RSASSA-PSS: securesystemslib signs with a salt as long as the digest (32 bytes) and its
/// verifier accepts any salt length; Apple's Security framework verifies only a 32-byte salt
/// (`kSecKeyAlgorithmRSASignatureMessagePSSSHA256`). So that a signature is valid on every
/// platform or on none, this package accepts the 32-byte salt only, on Linux too.
package enum SignatureScheme: String, Sendable, Hashable, CaseIterable {
    /// Ed25519 (RFC 8032), pure (the message is not pre-hashed).
    case ed25519 = "ed25519"
    /// ECDSA over NIST P-256 with SHA-256.
    case ecdsaP256SHA256 = "ecdsa-sha2-nistp256"
    /// ECDSA over NIST P-384 with SHA-384.
    case ecdsaP384SHA384 = "ecdsa-sha2-nistp384"
    /// ECDSA over NIST P-521 with SHA-512.
    case ecdsaP521SHA512 = "ecdsa-sha2-nistp521"
    /// RSASSA-PSS (RFC 8017) with SHA-256, MGF1-SHA-256 and a 32-byte salt.
    case rsaPSSSHA256 = "rsassa-pss-sha256"

    /// The kind of key the scheme verifies with.
    package var algorithm: PublicKeyAlgorithm {
        switch self {
        case .ed25519: .ed25519
        case .ecdsaP256SHA256: .ecP256
        case .ecdsaP384SHA384: .ecP384
        case .ecdsaP521SHA512: .ecP521
        case .rsaPSSSHA256: .rsa
        }
    }
}

/// The kind of a public key, as its SubjectPublicKeyInfo names it.
package enum PublicKeyAlgorithm: String, Sendable, Hashable {
    /// Ed25519 (OID 1.3.101.112).
    case ed25519 = "Ed25519"
    /// EC on NIST P-256 (secp256r1).
    case ecP256 = "EC P-256"
    /// EC on NIST P-384 (secp384r1).
    case ecP384 = "EC P-384"
    /// EC on NIST P-521 (secp521r1).
    case ecP521 = "EC P-521"
    /// RSA (rsaEncryption).
    case rsa = "RSA"

    /// For an EC key, the byte length of one coordinate (and of r and s in a raw signature).
    package var coordinateLength: Int? {
        switch self {
        case .ecP256: 32
        case .ecP384: 48
        case .ecP521: 66
        case .ed25519, .rsa: nil
        }
    }
}

/// The encoding of an ECDSA signature: DER (`SEQUENCE {INTEGER r, INTEGER s}`, what TUF,
/// securesystemslib and OpenSSL write) or raw (`r || s`, each as long as a coordinate, what
/// JOSE/COSE and some signers write). Ignored by the other schemes.
package enum ECDSASignatureEncoding: Sendable, Hashable {
    /// ASN.1 DER.
    case der
    /// The fixed-length concatenation `r || s`.
    case raw
}

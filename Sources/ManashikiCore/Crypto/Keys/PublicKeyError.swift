import Foundation

/// A public key or a signature this package cannot use: the key's text or bytes are not what
/// its scheme requires. A signature that is well-formed but wrong is not an error: verification
/// answers `false`.
package enum PublicKeyError: Error, Sendable, Hashable, LocalizedError {
    /// The key (PEM, DER, hex) is not well-formed; the text says where.
    case malformed(String)
    /// The key is well-formed but not what the scheme verifies with (an RSA key for ed25519,
    /// a P-384 key for ecdsa-sha2-nistp256, an RSA modulus out of bounds).
    case wrongKind(scheme: String, found: String)
    /// A scheme this package does not verify.
    case unsupportedScheme(String)

    package var errorDescription: String? {
        switch self {
        case .malformed(let what):
            "The public key is malformed: \(what). Use the key exactly as the signer exported it (PEM SubjectPublicKeyInfo, `-----BEGIN PUBLIC KEY-----`; ed25519 in TUF as 64 hex digits)."
        case .wrongKind(let scheme, let found):
            "The key is \(found), which scheme \"\(scheme)\" cannot verify with. Give the scheme that matches the key."
        case .unsupportedScheme(let scheme):
            "Signature scheme \"\(scheme)\" is not supported. Supported: \(SignatureScheme.allCases.map(\.rawValue).joined(separator: ", "))."
        }
    }
}

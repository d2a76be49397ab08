#if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
import Foundation
// CryptoKit's Curve25519.Signing.PrivateKey (init(rawRepresentation:), publicKey,
// signature(for:)) exists since iOS 13, macOS 10.15, tvOS 13, watchOS 6 and visionOS 1
// (developer.apple.com/documentation/cryptokit/curve25519/signing/privatekey): below every
// deployment target in Package.swift.
import CryptoKit
#else
// OpenSSL's libcrypto EVP API (Package.swift links CManashikiCrypto on Linux and Android only).
import CManashikiCrypto
#endif

/// Ed25519 signing, per platform: CryptoKit on Apple platforms, OpenSSL's raw-key EVP API
/// (`EVP_PKEY_new_raw_private_key`, `EVP_DigestSign`, OpenSSL 1.1.1 and later) elsewhere.
enum SigningEngine {
    /// The public key of the 32-byte `seed`, nil when the platform refuses it.
    static func ed25519PublicKey(seed: [UInt8]) -> [UInt8]? {
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else { return nil }
        return Array(key.publicKey.rawRepresentation)
        #else
        guard let pkey = EVP_PKEY_new_raw_private_key(NID_ED25519, nil, seed, seed.count) else { return nil }
        defer { EVP_PKEY_free(pkey) }
        var out = [UInt8](repeating: 0, count: 32)
        var length = out.count
        guard EVP_PKEY_get_raw_public_key(pkey, &out, &length) == 1, length == 32 else { return nil }
        return out
        #endif
    }

    /// The 64-byte Ed25519 signature of `message` by the key of `seed` (a seed
    /// `Ed25519SigningKey` already accepted).
    static func ed25519Sign(seed: [UInt8], message: [UInt8]) -> [UInt8] {
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed),
              let signature = try? key.signature(for: message) else { preconditionFailure("CryptoKit refused an Ed25519 key it accepted") }
        return Array(signature)
        #else
        guard let pkey = EVP_PKEY_new_raw_private_key(NID_ED25519, nil, seed, seed.count), let ctx = EVP_MD_CTX_new() else {
            preconditionFailure("OpenSSL refused an Ed25519 key it accepted")
        }
        defer { EVP_PKEY_free(pkey); EVP_MD_CTX_free(ctx) }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = signature.count
        guard EVP_DigestSignInit(ctx, nil, nil, nil, pkey) == 1,
              EVP_DigestSign(ctx, &signature, &length, message, message.count) == 1, length == 64 else {
            preconditionFailure("OpenSSL could not sign with an Ed25519 key")
        }
        return signature
        #endif
    }
}

#if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
import Foundation
// CryptoKit's Curve25519.Signing and P256/P384/P521.Signing exist since iOS 13, macOS 10.15,
// tvOS 13, watchOS 6 and visionOS 1; Security's SecKeyCreateWithData and SecKeyVerifySignature
// since iOS 10, macOS 10.12, tvOS 10, watchOS 3 and visionOS 1
// (developer.apple.com/documentation/cryptokit, /documentation/security): below every
// deployment target in Package.swift.
import CryptoKit
import Security
#else
// OpenSSL's libcrypto EVP API (Package.swift links CManashikiCrypto on Linux and Android only).
import CManashikiCrypto
#endif

/// Public-key signature verification, per platform: CryptoKit (Ed25519, ECDSA P-256/384/521)
/// and Security (RSASSA-PSS) on Apple platforms, OpenSSL's EVP_DigestVerify elsewhere. Keys and
/// signatures arrive already parsed and shape-checked by `PublicKey`; ECDSA signatures in DER.
enum SignatureEngine {
    /// Whether `signature` verifies `message` under `key`'s scheme.
    static func verify(_ key: PublicKey, signature: [UInt8], message: [UInt8]) -> Bool {
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        appleVerify(key, signature: signature, message: message)
        #else
        openSSLVerify(key, signature: signature, message: message)
        #endif
    }

    #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
    private static func appleVerify(_ key: PublicKey, signature: [UInt8], message: [UInt8]) -> Bool {
        let raw = key.info.keyBytes
        switch key.scheme {
        case .ed25519:
            guard let k = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else { return false }
            return k.isValidSignature(signature, for: message)
        case .ecdsaP256SHA256:
            guard let k = try? P256.Signing.PublicKey(x963Representation: raw),
                  let s = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return k.isValidSignature(s, for: message)
        case .ecdsaP384SHA384:
            guard let k = try? P384.Signing.PublicKey(x963Representation: raw),
                  let s = try? P384.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return k.isValidSignature(s, for: message)
        case .ecdsaP521SHA512:
            guard let k = try? P521.Signing.PublicKey(x963Representation: raw),
                  let s = try? P521.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return k.isValidSignature(s, for: message)
        case .rsaPSSSHA256:
            // SecKeyCreateWithData takes an RSA public key as PKCS #1 RSAPublicKey DER, which is
            // what the SubjectPublicKeyInfo's BIT STRING holds.
            let attributes = [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: kSecAttrKeyClassPublic] as CFDictionary
            guard let k = SecKeyCreateWithData(Data(raw) as CFData, attributes, nil) else { return false }
            return SecKeyVerifySignature(k, .rsaSignatureMessagePSSSHA256, Data(message) as CFData, Data(signature) as CFData, nil)
        }
    }
    #else
    private static func openSSLVerify(_ key: PublicKey, signature: [UInt8], message: [UInt8]) -> Bool {
        let der = key.info.der
        let pkey: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let pkey else { return false }
        defer { EVP_PKEY_free(pkey) }
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        var pctx: OpaquePointer?
        let digest: OpaquePointer? = switch key.scheme {
        case .ed25519: nil
        case .ecdsaP256SHA256, .rsaPSSSHA256: EVP_sha256()
        case .ecdsaP384SHA384: EVP_sha384()
        case .ecdsaP521SHA512: EVP_sha512()
        }
        guard EVP_DigestVerifyInit(ctx, &pctx, digest, nil, pkey) == 1 else { return false }
        if key.scheme == .rsaPSSSHA256 {
            guard EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1,
                  EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, EVP_sha256()) == 1,
                  EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1 else { return false }
        }
        return EVP_DigestVerify(ctx, signature, signature.count, message, message.count) == 1
    }
    #endif
}

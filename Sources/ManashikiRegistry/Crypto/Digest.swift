import Foundation
#if canImport(CryptoKit)
import CryptoKit
#else
import CManashikiCrypto
#endif

/// Incremental SHA-256 (CryptoKit on Apple platforms, OpenSSL's EVP API elsewhere).
final class SHA256Stream {
    #if canImport(CryptoKit)
    private var impl = CryptoKit.SHA256()
    #else
    private let ctx: OpaquePointer
    #endif

    init() {
        #if !canImport(CryptoKit)
        guard let ctx = EVP_MD_CTX_new(), EVP_DigestInit_ex(ctx, EVP_sha256(), nil) == 1 else {
            fatalError("libcrypto could not initialise SHA-256")
        }
        self.ctx = ctx
        #endif
    }

    deinit {
        #if !canImport(CryptoKit)
        EVP_MD_CTX_free(ctx)
        #endif
    }

    /// Adds bytes.
    func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        #if canImport(CryptoKit)
        impl.update(bufferPointer: bytes)
        #else
        EVP_DigestUpdate(ctx, bytes.baseAddress, bytes.count)
        #endif
    }

    /// Adds bytes.
    func update(_ data: Data) { data.withUnsafeBytes { update($0) } }

    /// The digest as 64 lowercase hex characters. Call once.
    func finalizeHex() -> String {
        #if canImport(CryptoKit)
        return Hex.encode(Array(impl.finalize()))
        #else
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(ctx, &out, &length)
        return Hex.encode(out)
        #endif
    }

    /// The SHA-256 of `data` in hex.
    static func hex(_ data: Data) -> String {
        let s = SHA256Stream()
        s.update(data)
        return s.finalizeHex()
    }
}

/// HMAC-SHA256, for signing storage URLs.
enum HMACSHA256 {
    /// The MAC of `message` under `key`, in hex.
    static func hex(key: [UInt8], message: String) -> String {
        let bytes = Array(message.utf8)
        #if canImport(CryptoKit)
        let mac = HMAC<CryptoKit.SHA256>.authenticationCode(for: bytes, using: SymmetricKey(data: key))
        return Hex.encode(Array(mac))
        #else
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = key.withUnsafeBufferPointer { k in
            bytes.withUnsafeBufferPointer { m in
                HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress, m.count, &out, &length)
            }
        }
        precondition(ok != nil, "libcrypto HMAC failed")
        return Hex.encode(Array(out.prefix(Int(length))))
        #endif
    }
}

/// Lowercase hex encoding and constant-time comparison.
enum Hex {
    /// Lowercase hex of `bytes`.
    static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `count` random bytes in hex.
    static func random(bytes count: Int) -> String {
        var g = SystemRandomNumberGenerator()
        return encode((0..<count).map { _ in UInt8.random(in: 0...255, using: &g) })
    }

    /// Whether `s` is 64 lowercase hex characters.
    static func isSHA256(_ s: String) -> Bool {
        let u = s.utf8
        return u.count == 64 && u.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    /// Compares two strings in time independent of where they differ.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<x.count { diff |= x[i] ^ y[i] }
        return diff == 0
    }
}

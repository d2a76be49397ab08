import Foundation
#if canImport(CryptoKit)
import CryptoKit
#else
import CManashikiCrypto
#endif

/// Incremental SHA-256 at hardware speed: CryptoKit on Apple platforms, OpenSSL's libcrypto
/// (SHA-NI / ARMv8 crypto instructions) elsewhere.
///
/// ```swift
/// let hasher = SHA256Hasher()
/// hasher.update(Data("abc".utf8))
/// hasher.finalize().hex // "ba7816bf…"
/// ```
public final class SHA256Hasher {
    #if canImport(CryptoKit)
    private var impl = CryptoKit.SHA256()
    #else
    private let ctx: OpaquePointer
    #endif
    private var finished = false

    /// Starts a new digest.
    public init() {
        #if canImport(CryptoKit)
        #else
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

    /// Adds bytes to the digest.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(!finished, "SHA256Hasher used after finalize()")
        guard bytes.count > 0 else { return }
        #if canImport(CryptoKit)
        impl.update(bufferPointer: bytes)
        #else
        EVP_DigestUpdate(ctx, bytes.baseAddress, bytes.count)
        #endif
    }

    /// Adds bytes to the digest.
    public func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// Finishes and returns the digest. The hasher cannot be used afterwards.
    public func finalize() -> SHA256Digest {
        precondition(!finished, "SHA256Hasher finalized twice")
        finished = true
        #if canImport(CryptoKit)
        return SHA256Digest(bytes: Array(impl.finalize()))
        #else
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(ctx, &out, &length)
        return SHA256Digest(bytes: out)
        #endif
    }

    /// The digest of `data`.
    public static func hash(_ data: Data) -> SHA256Digest {
        let h = SHA256Hasher()
        h.update(data)
        return h.finalize()
    }
}

/// A SHA-256 digest.
public struct SHA256Digest: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes.
    public let bytes: [UInt8]

    /// Wraps 32 bytes.
    public init(bytes: [UInt8]) {
        precondition(bytes.count == 32, "a SHA-256 digest is 32 bytes")
        self.bytes = bytes
    }

    /// 64 lowercase hex characters.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The hex form.
    public var description: String { hex }

    /// Whether `s` is 64 lowercase hex characters, the form the registry uses.
    public static func isHex(_ s: String) -> Bool {
        let u = s.utf8
        return u.count == 64 && u.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }
}

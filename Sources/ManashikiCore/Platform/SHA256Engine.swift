#if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
// CryptoKit's SHA256 and HMAC exist since iOS 13, iPadOS 13, Mac Catalyst 13, macOS 10.15,
// tvOS 13, watchOS 6 and visionOS 1 (developer.apple.com/documentation/cryptokit), below every
// deployment target in Package.swift.
import CryptoKit
#else
// OpenSSL's libcrypto (Package.swift links CManashikiCrypto on Linux and Android only).
import CManashikiCrypto
#endif

// Where ManashikiCore's hashing differs per platform (`OperatingSystem`, beside it, only names
// the system; `SignatureEngine` verifies signatures): CryptoKit on Apple platforms, OpenSSL's
// EVP API (SHA-NI / ARMv8 crypto instructions) elsewhere. Everything above this folder is
// platform-free.

/// Incremental SHA-256 state. Not thread-safe; owned by one `SHA256Hasher`.
struct SHA256Engine: ~Copyable {
    #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
    private var impl = CryptoKit.SHA256()

    init() {}

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        impl.update(bufferPointer: bytes)
    }

    /// The 32 digest bytes. Call once.
    mutating func finalize() -> [UInt8] {
        Array(impl.finalize())
    }
    #else
    private let ctx: OpaquePointer

    init() {
        guard let ctx = EVP_MD_CTX_new(), EVP_DigestInit_ex(ctx, EVP_sha256(), nil) == 1 else {
            fatalError("libcrypto could not initialise SHA-256")
        }
        self.ctx = ctx
    }

    deinit { EVP_MD_CTX_free(ctx) }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        EVP_DigestUpdate(ctx, bytes.baseAddress, bytes.count)
    }

    /// The 32 digest bytes. Call once.
    mutating func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(ctx, &out, &length)
        return out
    }
    #endif

    /// The `algorithm` digest of `bytes`, in one call.
    static func oneShot(_ algorithm: DigestAlgorithm, _ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        func run<H: HashFunction>(_ hasher: H) -> [UInt8] {
            var h = hasher
            h.update(bufferPointer: bytes)
            return Array(h.finalize())
        }
        return switch algorithm {
        case .sha256: run(CryptoKit.SHA256())
        case .sha384: run(CryptoKit.SHA384())
        case .sha512: run(CryptoKit.SHA512())
        }
        #else
        let md: OpaquePointer? = switch algorithm {
        case .sha256: EVP_sha256()
        case .sha384: EVP_sha384()
        case .sha512: EVP_sha512()
        }
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        precondition(EVP_Digest(bytes.baseAddress, bytes.count, &out, &length, md, nil) == 1, "libcrypto digest failed")
        return Array(out.prefix(Int(length)))
        #endif
    }

    /// HMAC-SHA256 of `message` under `key`: the 32 MAC bytes.
    static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        let mac = HMAC<CryptoKit.SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
        return Array(mac)
        #else
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress, m.count, &out, &length)
            }
        }
        precondition(ok != nil, "libcrypto HMAC failed")
        return Array(out.prefix(Int(length)))
        #endif
    }
}

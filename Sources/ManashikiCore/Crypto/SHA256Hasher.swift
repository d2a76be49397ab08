import Foundation

/// Incremental SHA-256 at hardware speed (CryptoKit on Apple platforms, OpenSSL's libcrypto
/// elsewhere: see `Platform/SHA256Engine.swift`). The one SHA-256 of the package: the SDK, the
/// sync agent and the development registry all hash through it.
///
/// ```swift
/// let hasher = SHA256Hasher()
/// hasher.update(Data("abc".utf8))
/// hasher.finalize().hex // "ba7816bf…"
/// ```
package final class SHA256Hasher {
    private var engine = SHA256Engine()
    private var finished = false

    /// Starts a new digest.
    package init() {}

    /// Adds bytes to the digest.
    package func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(!finished, "SHA256Hasher used after finalize()")
        guard bytes.count > 0 else { return }
        engine.update(bytes)
    }

    /// Adds bytes to the digest.
    package func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// Finishes and returns the digest. The hasher cannot be used afterwards.
    package func finalize() -> ArtifactDigest {
        precondition(!finished, "SHA256Hasher finalized twice")
        finished = true
        return ArtifactDigest(bytes: engine.finalize())
    }

    /// The digest of `data`.
    package static func hash(_ data: Data) -> ArtifactDigest {
        let h = SHA256Hasher()
        h.update(data)
        return h.finalize()
    }
}

import Foundation

/// An Ed25519 private key that signs: what the development registry signs its TUF metadata
/// with (keys it generates, or seeds given to it). Verification is `PublicKey`'s.
///
/// ```swift
/// let key = Ed25519SigningKey.generate()
/// let signature = key.sign(Array("message".utf8))   // 64 bytes
/// ```
package struct Ed25519SigningKey: Sendable, Hashable {
    /// The 32-byte seed (RFC 8032's private key).
    package let seed: [UInt8]
    /// The 32-byte public key.
    package let publicKey: [UInt8]

    /// The key of `seed`; nil unless it is 32 bytes (or the platform refuses it).
    package init?(seed: [UInt8]) {
        guard seed.count == 32, let publicKey = SigningEngine.ed25519PublicKey(seed: seed) else { return nil }
        self.seed = seed
        self.publicKey = publicKey
    }

    /// A new key from the system's random generator.
    package static func generate() -> Ed25519SigningKey {
        var generator = SystemRandomNumberGenerator()
        while true {
            let seed = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if let key = Ed25519SigningKey(seed: seed) { return key }
        }
    }

    /// The 64-byte signature of `message`.
    package func sign(_ message: [UInt8]) -> [UInt8] { SigningEngine.ed25519Sign(seed: seed, message: message) }
}

/// A SHA-256 digest, as the registry publishes one per artifact.
///
/// Named so that it cannot clash with CryptoKit's `ArtifactDigest` in a file that imports both.
package struct ArtifactDigest: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes.
    package let bytes: [UInt8]

    /// Wraps 32 bytes.
    package init(bytes: [UInt8]) {
        precondition(bytes.count == 32, "a SHA-256 digest is 32 bytes")
        self.bytes = bytes
    }

    /// 64 lowercase hex characters.
    package var hex: String { Hex.encode(bytes) }

    /// The hex form.
    package var description: String { hex }
}

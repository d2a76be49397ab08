/// A hash function named as TUF names it in `hashes` (`"sha256"`, `"sha512"`), for one-shot
/// digests of small things (metadata files, test artifacts). Large files stream through
/// `SHA256Hasher`.
package enum DigestAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// SHA-256.
    case sha256
    /// SHA-384.
    case sha384
    /// SHA-512.
    case sha512

    /// The digest of `bytes`.
    package func digest(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { SHA256Engine.oneShot(self, $0) }
    }

    /// The digest of `bytes`, lowercase hex.
    package func hex(_ bytes: [UInt8]) -> String { Hex.encode(digest(bytes)) }
}

import Foundation

/// Where a model's bytes come from.
///
/// ```swift
/// .generated(size: 1 << 20, seed: 7)   // deterministic bytes, nothing stored in the repository
/// .data(Data("hello".utf8))
/// .file(URL(fileURLWithPath: "/tmp/model.bin"))
/// ```
public enum RegistryArtifact: Sendable, Hashable {
    /// `size` deterministic bytes from `seed` (see `GeneratedBytes`), materialised once into
    /// the cache directory so they can be served with `sendfile(2)`.
    case generated(size: Int, seed: UInt64)
    /// Bytes held in memory (written to the registry's work directory at start).
    case data(Data)
    /// A file served as is.
    case file(URL)
}

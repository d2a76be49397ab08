import Foundation
import ManashikiCore
import Manashiki

/// Where an interrupted push continues: for each blob upload under way, the registry's upload
/// URL and the bytes it acknowledged, in `<store>/.manashiki/oci-uploads/<key>.json` (mode
/// 0600, its folder 0700: the URL is the upload's capability). Written after each acknowledged
/// chunk (through the folder's descriptor, `DirectoryHandle`), removed when the blob is in the
/// registry. Losing it costs only a fresh upload of that blob.
struct OCIUploadStates: Sendable {
    /// The store.
    let store: StoreLayout
    /// `oci-uploads`, inside the private folder.
    static let folderName = "oci-uploads"
    /// The most bytes of a record read (one is a few hundred bytes).
    static let maxBytes = 64 << 10

    init(store: StoreLayout) { self.store = store }

    /// `<store>/.manashiki/oci-uploads`.
    var directory: URL { store.metadataDirectory.appendingPathComponent(Self.folderName, isDirectory: true) }

    /// One upload under way.
    struct Saved: Codable, Sendable, Hashable {
        var formatVersion = 1
        var registry: String
        var repository: String
        var sha256: String
        /// The URL of the next request (the registry may change it after each chunk).
        var location: String
        /// Bytes the registry acknowledged.
        var offset: Int64
    }

    /// `<key>.json`: 32 hex of the SHA-256 of the registry, repository and digest.
    func fileName(_ reference: OCIReference, _ sha256: String) -> String {
        let key = SHA256Hasher.hash(Data("\(reference.registry)/\(reference.repository)@\(sha256)".utf8)).hex.prefix(32)
        return "\(key).json"
    }

    func file(_ reference: OCIReference, _ sha256: String) -> URL { directory.appendingPathComponent(fileName(reference, sha256)) }

    private func folder(creating: Bool) -> DirectoryHandle? {
        try? store.openMetadataFolder(Self.folderName, creating: creating, permissions: 0o700)
    }

    func load(_ reference: OCIReference, _ sha256: String) -> Saved? {
        guard let data = try? folder(creating: false)?.read(fileName(reference, sha256), limit: Self.maxBytes),
              let saved = try? StrictJSONDecoder().decode(Saved.self, from: data), saved.formatVersion == 1,
              saved.registry == reference.registry, saved.repository == reference.repository, saved.sha256 == sha256 else { return nil }
        return saved
    }

    /// Replaces the record (a temporary file renamed over it; a crash leaves the old or the new).
    func save(_ saved: Saved, _ reference: OCIReference) {
        guard let data = try? JSONEncoder().encode(saved) else { return }
        try? folder(creating: true)?.replace(fileName(reference, saved.sha256), with: data, permissions: 0o600)
    }

    func remove(_ reference: OCIReference, _ sha256: String) { folder(creating: false)?.remove(fileName(reference, sha256)) }
}

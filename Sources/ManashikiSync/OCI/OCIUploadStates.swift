import Foundation
import ManashikiCore
import Manashiki
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where an interrupted push continues: for each blob upload under way, the registry's upload
/// URL and the bytes it acknowledged, in `<store>/.manashiki/oci-uploads/<key>.json` (mode
/// 0600: the URL is the upload's capability). Written after each acknowledged chunk, removed
/// when the blob is in the registry. Losing it costs only a fresh upload of that blob.
struct OCIUploadStates: Sendable {
    /// `<store>/.manashiki/oci-uploads`.
    let directory: URL

    init(store: StoreLayout) { directory = store.metadataDirectory.appendingPathComponent("oci-uploads", isDirectory: true) }

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

    func file(_ reference: OCIReference, _ sha256: String) -> URL {
        let key = SHA256Hasher.hash(Data("\(reference.registry)/\(reference.repository)@\(sha256)".utf8)).hex.prefix(32)
        return directory.appendingPathComponent("\(key).json")
    }

    func load(_ reference: OCIReference, _ sha256: String) -> Saved? {
        guard let data = FileManager.default.contents(atPath: file(reference, sha256).path),
              let saved = try? JSONDecoder().decode(Saved.self, from: data), saved.formatVersion == 1,
              saved.registry == reference.registry, saved.repository == reference.repository, saved.sha256 == sha256 else { return nil }
        return saved
    }

    /// Replaces the record (a temporary file renamed over it; a crash leaves the old or the new).
    func save(_ saved: Saved, _ reference: OCIReference) {
        guard let data = try? JSONEncoder().encode(saved) else { return }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let target = file(reference, saved.sha256)
        let temp = directory.appendingPathComponent(".\(target.lastPathComponent).\(POSIX.randomSuffix()).tmp")
        guard FileManager.default.createFile(atPath: temp.path, contents: data, attributes: [.posixPermissions: 0o600]) else { return }
        if rename(temp.path, target.path) != 0 { try? FileManager.default.removeItem(at: temp) }
    }

    func remove(_ reference: OCIReference, _ sha256: String) { try? FileManager.default.removeItem(at: file(reference, sha256)) }
}

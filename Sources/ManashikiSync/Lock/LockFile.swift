import Foundation
import Manashiki
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `manashiki.lock.json`: the exact artifacts a manifest resolved to, for reproducible syncs
/// (`manashiki-sync lock`, `sync --locked`, `lock --check`). Format version 1:
///
/// ```json
/// {"formatVersion": 1, "models": [{"modelId": "whisper-tiny-en", "version": "1.2.0",
///   "size": 4194304, "sha256": "…", "record": {…}}],
///  "signedMetadata": {"root": 2, "timestamp": 7, "snapshot": 7, "targets": 5}}
/// ```
/// `signedMetadata` (with `trust.tuf` only) is optional: lock files without it, older ones
/// included, stay valid format 1, and an agent older than it ignores it.
/// Written beside the manifest; commit it with the manifest.
public struct LockFile: Sendable, Hashable, Codable {
    /// The format this library reads and writes.
    public static let currentFormatVersion = 1
    /// The file name, beside the manifest.
    public static let fileName = "manashiki.lock.json"

    /// The format version.
    public var formatVersion: Int
    /// One artifact per model, in the manifest's order.
    public var models: [PinnedArtifact]
    /// With `trust.tuf`: the versions of the signed metadata every locked artifact was checked
    /// against when the lock was written (`LockResolver.confirmSigned`); nil otherwise.
    public var signedMetadata: SignedMetadataVersions?

    /// Creates a lock.
    public init(models: [PinnedArtifact]) {
        formatVersion = Self.currentFormatVersion
        self.models = models
    }

    /// The locked artifact of `modelId`.
    public subscript(modelId: String) -> PinnedArtifact? { models.first { $0.modelId == modelId } }

    /// `<manifest's directory>/manashiki.lock.json`.
    public static func url(besideManifest manifest: URL) -> URL {
        manifest.deletingLastPathComponent().appendingPathComponent(fileName)
    }

    /// Decodes and validates a lock; `location` names it in errors.
    /// - Throws: `ArtifactFileError` naming the file and the JSON path.
    public static func decode(_ data: Data, location: String) throws -> LockFile {
        let lock = try VersionedJSON.decodeFile(LockFile.self, from: data, supported: currentFormatVersion, location: location, what: "lock file")
        var seen = Set<String>()
        for (i, entry) in lock.models.enumerated() {
            if let problem = entry.problems.first {
                throw ArtifactFileError(location: location, message: "models[\(i)].\(problem.field): \(problem.message)",
                                        hint: "write the lock again with \(Remedy.lock)")
            }
            guard seen.insert(entry.modelId).inserted else {
                throw ArtifactFileError(location: location, message: "models[\(i)].modelId: \"\(entry.modelId)\" is locked twice",
                                        hint: "write the lock again with \(Remedy.lock)")
            }
        }
        return lock
    }

    /// The most bytes of a lock file read (about 1 KiB a model).
    public static let maxBytes = 16 << 20

    /// Reads the lock at `url` (non-blocking, refused unless a regular file, at most `maxBytes`).
    /// - Throws: `ArtifactFileError` (missing, unreadable, too large, newer format, invalid entry).
    public static func read(_ url: URL) throws -> LockFile {
        let data: Data
        do { data = try RegularFile.contents(url.path, limit: maxBytes) } catch APIError.fileSystem(_, _, let code) where code == ENOENT {
            throw ArtifactFileError(location: url.path, message: "no lock file here",
                                    hint: "run \(Remedy.lock) to write one beside the manifest, or pass \(Remedy.lockFilePath)")
        } catch {
            throw ArtifactFileError(location: url.path, message: "cannot be read (\(SyncFailure(error).message))",
                                    hint: "run \(Remedy.lock) to write it again beside the manifest")
        }
        return try decode(data, location: url.path)
    }

    /// Writes the lock atomically (temporary file, flush, rename, flush directory).
    /// - Throws: `APIError.fileSystem`.
    public func write(to url: URL) throws {
        try DurableFile.replace(url, with: try VersionedJSON.encode(self, pretty: true))
    }
}

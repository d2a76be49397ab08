import Foundation
import Manashiki
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A bundle's `index.json`: which artifacts the bundle holds, with the record facts an
/// offline plan needs. Format version 1:
///
/// ```json
/// {"formatVersion": 1, "models": [{"modelId": "…", "version": "…", "size": 4194304, "sha256": "…",
///                                   "record": {"visibility": "public", "lifecycle": {…}, "compatibility": {…}}}]}
/// ```
/// A model may appear in several versions (a bundle that accumulates exports); each artifact
/// appears once.
public struct BundleIndex: Sendable, Hashable, Codable {
    /// The format this library reads and writes.
    public static let currentFormatVersion = 1
    /// The most bytes of an index read, from a directory, a mirror or an OCI artifact's config
    /// (about 40,000 entries): checked on the file's size or the declared length, then while
    /// reading.
    public static let maxBytes = 16 << 20

    /// The format version.
    public var formatVersion: Int
    /// The artifacts, sorted by model id then version.
    public var models: [PinnedArtifact]

    /// Creates an index (entries are de-duplicated by model and digest, and sorted).
    public init(models: [PinnedArtifact]) {
        formatVersion = Self.currentFormatVersion
        var seen = Set<String>()
        self.models = models.filter { seen.insert("\($0.modelId) \($0.sha256)").inserted }
            .sorted { ($0.modelId, $0.version, $0.sha256) < ($1.modelId, $1.version, $1.sha256) }
    }

    /// The entries of `modelId`, newest version first.
    public func artifacts(of modelId: String) -> [PinnedArtifact] {
        models.filter { $0.modelId == modelId }.sorted { a, b in
            guard let x = ModelVersion(a.version), let y = ModelVersion(b.version) else { return a.version > b.version }
            return x > y
        }
    }

    /// The entry with this digest, if any.
    public func artifact(sha256: String) -> PinnedArtifact? { models.first { $0.sha256 == sha256 } }

    /// Decodes and validates an index; `location` names it in errors.
    /// - Throws: `ArtifactFileError` naming the file and the JSON path.
    public static func decode(_ data: Data, location: String) throws -> BundleIndex {
        let index = try VersionedJSON.decodeFile(BundleIndex.self, from: data, supported: currentFormatVersion, location: location, what: "bundle index")
        for (i, entry) in index.models.enumerated() {
            if let problem = entry.problems.first {
                throw ArtifactFileError(location: location, message: "models[\(i)].\(problem.field): \(problem.message)",
                                        hint: "export the bundle again with \(Remedy.export(to: nil))")
            }
        }
        return index
    }

    /// Reads `<bundle>/index.json`: opened non-blocking and refused unless it is a regular
    /// file (a FIFO planted there cannot hang the run), at most `maxBytes` read.
    /// - Throws: `ArtifactFileError` (missing, unreadable, not a regular file, too large, newer
    ///   format, invalid entry).
    public static func read(_ layout: BundleLayout) throws -> BundleIndex {
        let path = layout.indexFile.path
        let hint = "point the source at a directory written by \(Remedy.export(to: "DIR"))"
        let fd: Int32
        do { fd = try RegularFile.open(path) } catch {
            let exists = FileManager.default.fileExists(atPath: layout.directory.path)
            switch error {
            case .system(ENOENT): throw ArtifactFileError(location: path, message: exists ? "is missing" : "the bundle directory does not exist", hint: hint)
            default: throw ArtifactFileError(location: path, message: "cannot be read (\(error.reason))", hint: hint)
            }
        }
        defer { close(fd) }
        let data: Data
        do {
            let (read, size) = try RegularFile.read(fd, limit: maxBytes)
            guard let read else {
                throw ArtifactFileError(location: path, message: "is \(ByteSize.text(size)), over the \(ByteSize.text(Int64(maxBytes))) an index may be",
                                        hint: "this is not an index \(Remedy.export(to: nil)) wrote; " + hint)
            }
            data = read
        } catch let error as RegularFile.OpenError {
            throw ArtifactFileError(location: path, message: "cannot be read (\(error.reason))", hint: hint)
        }
        return try decode(data, location: path)
    }

    /// The index as written to disk.
    public func encoded() throws -> Data { try VersionedJSON.encode(self, pretty: true) }
}

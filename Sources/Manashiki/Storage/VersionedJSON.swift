import Foundation

/// The one reader and writer of the package's versioned JSON files (the store's state file, a
/// kept partial's sidecar, a lock file, a bundle's index): the format version is decoded
/// first, so a newer or unknown format is refused before its fields are read, then the
/// document. Callers word the failure for their file (`StateFile`, `PartialSidecar`,
/// ManashikiSync's `ArtifactFileError`).
///
/// ```swift
/// switch VersionedJSON.decode(StoreState.self, from: data, supported: 1) {
/// case .success(let state): …
/// case .failure(.newer(let version)): … // written by a newer version: never overwrite it
/// case .failure(let other): …
/// }
/// ```
package enum VersionedJSON {
    /// The key every such document starts with (keys are written sorted, so it comes first).
    package static let versionKey = "formatVersion"

    /// Why a document cannot be used.
    package enum Failure: Error, Sendable, Hashable {
        /// Not JSON, or not an object whose `formatVersion` (when present) is an integer.
        case notVersionedJSON
        /// A JSON object without `formatVersion`.
        case missingVersion
        /// A newer format than this version reads.
        case newer(Int)
        /// An older or unknown format this version does not read.
        case unsupported(Int)
        /// The right format, but a field is missing, null or of the wrong type: its JSON path
        /// (`models[3].sha256`, empty for the document) and the `DecodingError`'s words.
        case invalid(path: String, reason: String)
    }

    /// Decodes `data` as `T` after checking its `formatVersion` equals `supported`.
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data, supported: Int) -> Result<T, Failure> {
        guard let header = try? JSONDecoder().decode(Header.self, from: data) else { return .failure(.notVersionedJSON) }
        guard let version = header.formatVersion else { return .failure(.missingVersion) }
        if version > supported { return .failure(.newer(version)) }
        guard version == supported else { return .failure(.unsupported(version)) }
        do { return .success(try JSONDecoder().decode(T.self, from: data)) } catch let error as DecodingError {
            return .failure(.invalid(path: DecodingErrorText.path(of: error) ?? "", reason: DecodingErrorText.reason(of: error)))
        } catch {
            return .failure(.invalid(path: "", reason: "is not valid"))
        }
    }

    /// Encodes with sorted keys (so `formatVersion` comes first); `pretty` adds indentation and
    /// a trailing newline (files people read and commit), else compact (files read every run).
    package static func encode<T: Encodable>(_ value: T, pretty: Bool) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys]
        let data = try encoder.encode(value)
        return pretty ? data + Data("\n".utf8) : data
    }

    private struct Header: Decodable { var formatVersion: Int? }
}

import Foundation
import ManashikiCore

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
        /// Not JSON the strict parser accepts (a duplicate key, a trailing comma, nesting or a
        /// tree beyond `JSONLimits`): where and what (`JSONSyntaxError`'s description).
        case notJSON(String)
        /// Not an object whose `formatVersion` (when present) is an integer.
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

    /// Decodes `data` as `T` after checking its `formatVersion` equals `supported`: parsed once
    /// by the strict parser (`JSONValue.parse`, within `JSONLimits.default`: duplicate keys
    /// refused), then decoded from the tree (`StrictJSONDecoder`).
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data, supported: Int) -> Result<T, Failure> {
        let tree: JSONValue
        do { tree = try JSONValue.parse(data) } catch { return .failure(.notJSON(error.description)) }
        guard case .object(let members) = tree else { return .failure(.notVersionedJSON) }
        guard let field = members[versionKey] else { return .failure(.missingVersion) }
        guard case .int(let version) = field else { return .failure(.notVersionedJSON) }
        if version > supported { return .failure(.newer(version)) }
        guard version == supported else { return .failure(.unsupported(version)) }
        do { return .success(try StrictJSONDecoder().decode(T.self, from: tree)) } catch let error as DecodingError {
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

}

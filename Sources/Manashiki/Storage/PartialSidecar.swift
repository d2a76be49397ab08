import Foundation
import ManashikiCore

/// The sidecar of a kept partial download (`<partial>.json` next to it): which artifact the
/// bytes belong to and how many of them were flushed to disk. Written durably (`DurableFile`)
/// before the partial is left for a later run, so a crash leaves a usable pair or a
/// discardable one (no sidecar, or one that does not decode), never a wrong one.
///
/// ```json
/// {"formatVersion": 1, "modelId": "m", "sha256": "…", "size": 1048576, "version": "1.0.0",
///  "bytesKnownGood": 524288}
/// ```
package struct PartialSidecar: Sendable, Hashable, Codable {
    /// The format this SDK reads and writes.
    package static let currentFormatVersion = 1

    /// The format version (decoded first; any other value is not used).
    package var formatVersion: Int
    /// The model the bytes are of.
    package var modelId: String
    /// The digest the finished artifact must have.
    package var sha256: String
    /// The artifact's size.
    package var size: Int64
    /// The version being downloaded, when the registry said.
    package var version: String?
    /// Bytes at the start of the partial that were flushed to disk when the sidecar was written.
    package var bytesKnownGood: Int64

    package init(modelId: String, sha256: String, size: Int64, version: String?, bytesKnownGood: Int64) {
        formatVersion = Self.currentFormatVersion
        self.modelId = modelId
        self.sha256 = sha256
        self.size = size
        self.version = version
        self.bytesKnownGood = bytesKnownGood
    }

    /// Why a sidecar cannot be used.
    package enum Rejection: Error, Equatable {
        /// Not JSON, truncated, or fields missing or of the wrong type.
        case unreadable
        /// Another format version (a newer SDK's, or an unknown one).
        case otherFormat(Int)
        /// Fields that cannot be right (a negative size, more good bytes than the size, …).
        case inconsistent
    }

    /// Decodes a sidecar, checking the format version before anything else.
    package static func decode(_ data: Data) -> Result<PartialSidecar, Rejection> {
        struct Header: Decodable { var formatVersion: Int }
        guard let header = try? JSONDecoder().decode(Header.self, from: data) else { return .failure(.unreadable) }
        guard header.formatVersion == currentFormatVersion else { return .failure(.otherFormat(header.formatVersion)) }
        guard let sidecar = try? JSONDecoder().decode(PartialSidecar.self, from: data) else { return .failure(.unreadable) }
        guard sidecar.size >= 0, sidecar.bytesKnownGood >= 0, sidecar.bytesKnownGood <= sidecar.size,
              Hex.isSHA256(sidecar.sha256), (try? ModelID.validate(sidecar.modelId)) != nil else {
            return .failure(.inconsistent)
        }
        return .success(sidecar)
    }

    /// The encoded sidecar.
    package func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Whether the partial holds bytes of the artifact with this digest and size.
    package func belongs(to sha256: String, size: Int64) -> Bool { self.sha256 == sha256 && self.size == size }
}

import Foundation
import ManashikiCore

/// The sidecar of a kept partial download (`<partial>.json` next to it): which artifact the
/// bytes belong to and which of them are on disk. Written durably (`DurableFile`) before the
/// partial is left for a later run, so a crash leaves a usable pair or a discardable one (no
/// sidecar, or one that does not decode), never a wrong one.
///
/// Format 2 (written now) adds `parts`; format 1 (no `parts`) is still read.
///
/// ```json
/// {"formatVersion": 2, "modelId": "m", "sha256": "…", "size": 268435456, "version": "1.0.0",
///  "bytesKnownGood": 16777216, "parts": [[33554432, 41943040]]}
/// ```
///
/// - Without `parts` the partial was written in order: its first `bytesKnownGood` bytes were
///   flushed when the sidecar was written, and whatever the file holds (up to `size`) is its
///   prefix (a crash after the sidecar costs only the bytes in flight).
/// - With `parts` (a parallel transfer) only the recorded bytes count: the first
///   `bytesKnownGood` bytes, then each `[start, end)` range of `parts`. The file's size says
///   nothing (parts are written at their offsets).
///
/// Nothing recorded is trusted as the artifact's until the whole file's SHA-256 matches.
package struct PartialSidecar: Sendable, Hashable, Codable {
    /// The format this SDK writes.
    package static let currentFormatVersion = 2
    /// The older format this SDK still reads (no `parts`).
    package static let previousFormatVersion = 1
    /// The most bytes of a sidecar read (one is a few hundred bytes; a parallel transfer's
    /// parts add about 25 bytes each): a larger file is not one this SDK wrote.
    package static let maxBytes = 1 << 20

    /// The format version (decoded first; other values are not used).
    package var formatVersion: Int
    /// The model the bytes are of.
    package var modelId: String
    /// The digest the finished artifact must have.
    package var sha256: String
    /// The artifact's size.
    package var size: Int64
    /// The version being downloaded, when the registry said.
    package var version: String?
    /// Bytes at the start of the partial that were on disk when the sidecar was written.
    package var bytesKnownGood: Int64
    /// Ranges `[start, end)` on disk after the prefix (a parallel transfer's parts); nil when
    /// the partial is written in order.
    package var parts: [[Int64]]?

    package init(modelId: String, sha256: String, size: Int64, version: String?, bytesKnownGood: Int64, parts: [Range<Int64>]? = nil) {
        formatVersion = Self.currentFormatVersion
        self.modelId = modelId
        self.sha256 = sha256
        self.size = size
        self.version = version
        self.bytesKnownGood = bytesKnownGood
        self.parts = parts.map { $0.map { [$0.lowerBound, $0.upperBound] } }
    }

    /// The recorded parts as ranges (empty when written in order).
    package var partRanges: [Range<Int64>] { (parts ?? []).compactMap { $0.count == 2 && $0[0] < $0[1] ? $0[0]..<$0[1] : nil } }

    /// Why a sidecar cannot be used.
    package enum Rejection: Error, Equatable {
        /// Not JSON, truncated, or fields missing or of the wrong type.
        case unreadable
        /// Another format version (a newer SDK's, or an unknown one).
        case otherFormat(Int)
        /// Fields that cannot be right (a negative size, more good bytes than the size, …).
        case inconsistent
    }

    /// Decodes a sidecar of format 2 or 1, checking the format version before anything else
    /// (`VersionedJSON`).
    package static func decode(_ data: Data) -> Result<PartialSidecar, Rejection> {
        var decoded = VersionedJSON.decode(PartialSidecar.self, from: data, supported: currentFormatVersion)
        if case .failure(.unsupported(previousFormatVersion)) = decoded {
            decoded = VersionedJSON.decode(PartialSidecar.self, from: data, supported: previousFormatVersion).map { old in
                var sidecar = old
                sidecar.parts = nil // format 1 has none
                return sidecar
            }
        }
        switch decoded {
        case .failure(.newer(let version)), .failure(.unsupported(let version)): return .failure(.otherFormat(version))
        case .failure: return .failure(.unreadable)
        case .success(let sidecar): return sidecar.isConsistent ? .success(sidecar) : .failure(.inconsistent)
        }
    }

    private var isConsistent: Bool {
        guard size >= 0, bytesKnownGood >= 0, bytesKnownGood <= size, Hex.isSHA256(sha256),
              (try? ModelID.validate(modelId)) != nil else { return false }
        var floor = bytesKnownGood
        for part in parts ?? [] {
            guard part.count == 2, part[0] >= floor, part[0] < part[1], part[1] <= size else { return false }
            floor = part[1]
        }
        return true
    }

    /// The encoded sidecar.
    package func encoded() -> Data { (try? VersionedJSON.encode(self, pretty: false)) ?? Data() }

    /// Whether the partial holds bytes of the artifact with this digest and size.
    package func belongs(to sha256: String, size: Int64) -> Bool { self.sha256 == sha256 && self.size == size }
}

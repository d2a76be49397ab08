import Foundation
import Manashiki

/// What a store's `.manashiki/partial/` holds, as the tests judge it: a kept partial download
/// with a valid sidecar is allowed (it is there to be resumed); anything else is a stray file.
package enum PartialFolder {
    /// The names in `<store>/.manashiki/partial`.
    package static func names(in store: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: StoreLayout(directory: store).partialDirectory.path)) ?? []).sorted()
    }

    /// The kept partials (data file plus a sidecar of this SDK's format) in `store`, with their sidecars.
    package static func kept(in store: URL) -> [(name: String, bytes: Int64, sidecar: PartialSidecar)] {
        let layout = StoreLayout(directory: store)
        return names(in: store).compactMap { name in
            guard name.hasSuffix("." + StoreLayout.partialExtension),
                  let data = FileManager.default.contents(atPath: layout.partialFile(name + StoreLayout.sidecarSuffix).path),
                  case .success(let sidecar) = PartialSidecar.decode(data),
                  let size = (try? FileManager.default.attributesOfItem(atPath: layout.partialFile(name).path))?[.size] as? Int64
            else { return nil }
            return (name, size, sidecar)
        }
    }

    /// The bytes a next download would keep of the kept partials in `store`: the file's
    /// length for one written in order, the recorded prefix and parts for a parallel
    /// transfer's (whose file length says nothing).
    package static func resumableBytes(in store: URL) -> [Int64] {
        kept(in: store).map { kept in
            guard kept.sidecar.parts != nil else { return min(kept.bytes, kept.sidecar.size) }
            return kept.sidecar.bytesKnownGood + kept.sidecar.partRanges.reduce(Int64(0)) { $0 + Int64($1.count) }
        }
    }

    /// Files that are neither a kept partial nor its sidecar: temporary files that must not
    /// outlive a download.
    package static func strays(in store: URL) -> [String] {
        let kept = Set(kept(in: store).map(\.name))
        return names(in: store).filter { name in
            !(kept.contains(name) || (name.hasSuffix(StoreLayout.sidecarSuffix) && kept.contains(String(name.dropLast(StoreLayout.sidecarSuffix.count)))))
        }
    }
}

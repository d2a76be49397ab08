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

/// What the kept partial of a store holds of the artifact it is being downloaded into, measured
/// from the bytes themselves (never from what the SDK recorded): the resume tests' `kept`.
package struct PartialContents: Sendable, Equatable {
    /// Bytes of the partial that equal the artifact's at their offset: what was written (a
    /// hole reads as zeros; runs of fewer than `PartialContents.minimumRun` equal bytes are
    /// chance and not counted).
    package var onDisk: Int64
    /// The bytes a next download takes as written (`PartialFolder.resumableBytes`).
    package var recorded: Int64
    /// Whether every recorded byte is among `onDisk` (a sidecar never names a byte that was
    /// not written).
    package var recordedIsWritten: Bool
    /// The recorded bytes' ranges (what a next download must never ask the storage host for).
    package var recordedRanges: [Range<Int64>] = []

    /// The shortest run of equal bytes counted as written.
    package static let minimumRun = 32

    /// The partial with the most recorded bytes in `store` (the one a next download adopts),
    /// compared with `artifact`; nil when there is none.
    package static func of(_ store: URL, artifact: Data) -> PartialContents? {
        let layout = StoreLayout(directory: store)
        let best = PartialFolder.kept(in: store).max { recorded($0.bytes, $0.sidecar) < recorded($1.bytes, $1.sidecar) }
        guard let best, let data = FileManager.default.contents(atPath: layout.partialFile(best.name).path) else { return nil }
        let ranges = recordedRanges(best.bytes, best.sidecar)
        let written = ranges.allSatisfy { r in
            r.upperBound <= data.count && r.upperBound <= artifact.count
                && data[data.startIndex + Int(r.lowerBound)..<data.startIndex + Int(r.upperBound)]
                    .elementsEqual(artifact[artifact.startIndex + Int(r.lowerBound)..<artifact.startIndex + Int(r.upperBound)])
        }
        // Counted separately inside and outside the recorded ranges, so a run never carries
        // past a range's end into a hole by chance (an unwritten zero where the artifact has one).
        var pieces: [Range<Int>] = [], at = 0
        for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) where !r.isEmpty {
            pieces += [at..<max(at, Int(r.lowerBound)), Int(r.lowerBound)..<Int(r.upperBound)]
            at = Int(r.upperBound)
        }
        pieces.append(at..<max(at, min(data.count, artifact.count)))
        let onDisk = pieces.reduce(Int64(0)) { $0 + matching(data, artifact, in: $1) }
        return PartialContents(onDisk: onDisk, recorded: recorded(best.bytes, best.sidecar), recordedIsWritten: written,
                               recordedRanges: ranges.filter { !$0.isEmpty })
    }

    private static func recordedRanges(_ bytes: Int64, _ sidecar: PartialSidecar) -> [Range<Int64>] {
        guard sidecar.parts != nil else { return [0..<min(bytes, sidecar.size)] }
        return [0..<min(sidecar.bytesKnownGood, bytes)] + sidecar.partRanges.filter { $0.upperBound <= bytes }
    }

    private static func recorded(_ bytes: Int64, _ sidecar: PartialSidecar) -> Int64 {
        recordedRanges(bytes, sidecar).reduce(0) { $0 + Int64($1.count) }
    }

    /// Bytes of `data` equal to `artifact`'s at the same offset within `range`, in runs of at
    /// least `minimumRun`.
    private static func matching(_ data: Data, _ artifact: Data, in range: Range<Int>) -> Int64 {
        let count = min(data.count, artifact.count, range.upperBound)
        return data.withUnsafeBytes { a in
            artifact.withUnsafeBytes { b in
                var total: Int64 = 0, run = 0, offset = range.lowerBound
                let page = 4096
                while offset < count {
                    let n = min(page, count - offset)
                    if memcmp(a.baseAddress! + offset, b.baseAddress! + offset, n) == 0 {
                        run += n
                    } else {
                        for i in offset..<(offset + n) {
                            if a[i] == b[i] { run += 1; continue }
                            if run >= minimumRun { total += Int64(run) }
                            run = 0
                        }
                    }
                    offset += n
                }
                return total + (run >= minimumRun ? Int64(run) : 0)
            }
        }
    }
}

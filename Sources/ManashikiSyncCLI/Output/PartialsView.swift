import Foundation
import Manashiki

/// Renders the kept partial downloads (`StorageDirectory.keptPartials(in:)`) for `status` and
/// `verify`: the `partials` array of their `--json` summary and their text lines.
enum PartialsView {
    /// The `partials` array: `{modelId, bytes, ageSeconds, inUse}` per partial.
    static func fields(_ partials: [StorageDirectory.KeptPartial], now: Date) -> [PartialFields] {
        partials.map { p in PartialFields(modelId: p.modelId, bytes: p.bytes, ageSeconds: ageSeconds(p, now: now), inUse: p.inUse) }
    }

    /// One line per partial: model, bytes kept (of the artifact's size when known), age.
    static func lines(_ partials: [StorageDirectory.KeptPartial], now: Date) -> [String] {
        partials.map { p in
            let of = p.size.map { " of \(ByteFormat.bytes($0))" } ?? ""
            let use = p.inUse ? ", in use by a running download" : ""
            let age = DurationText.approximate(Double(ageSeconds(p, now: now)))
            return TextSanitizer.oneLine("Partial: \(p.modelId) — \(ByteFormat.bytes(p.bytes))\(of) kept, \(age) old\(use); the next sync resumes it")
        }
    }

    private static func ageSeconds(_ partial: StorageDirectory.KeptPartial, now: Date) -> Int {
        max(0, Int(now.timeIntervalSince(partial.modified)))
    }
}

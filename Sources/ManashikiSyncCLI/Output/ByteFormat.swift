import Foundation
import ManashikiCore
import ManashikiSync

/// Sizes and rates for people: `4.0 MiB`, `12.3 MiB/s`. Locale-independent (durations: `DurationText`).
package enum ByteFormat {
    /// `0 B`, `512 B`, `64.0 KiB`, `4.0 MiB`, `1.50 GiB`.
    package static func bytes(_ count: Int64) -> String { ByteSize.text(count) }

    /// `12.3 MiB/s`.
    package static func rate(_ bytesPerSecond: Double) -> String {
        guard bytesPerSecond.isFinite, bytesPerSecond > 0 else { return "-" }
        return bytes(Int64(bytesPerSecond)) + "/s"
    }
}

import Foundation
import ManashikiSync

/// Sizes, rates and durations for people: `4.0 MiB`, `12.3 MiB/s`, `1m05s`. Locale-independent.
package enum ByteFormat {
    /// `0 B`, `512 B`, `64.0 KiB`, `4.0 MiB`, `1.50 GiB`.
    package static func bytes(_ count: Int64) -> String { ByteSize.text(count) }

    /// `12.3 MiB/s`.
    package static func rate(_ bytesPerSecond: Double) -> String {
        guard bytesPerSecond.isFinite, bytesPerSecond > 0 else { return "-" }
        return bytes(Int64(bytesPerSecond)) + "/s"
    }

    /// `0.4s`, `42s`, `3m05s`, `2h10m`.
    package static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "-" }
        if seconds < 10 { return String(format: "%.1fs", seconds) }
        let s = Int(seconds.rounded(.up))
        if s < 60 { return "\(s)s" }
        if s < 3600 { return String(format: "%dm%02ds", s / 60, s % 60) }
        return String(format: "%dh%02dm", s / 3600, (s % 3600) / 60)
    }
}

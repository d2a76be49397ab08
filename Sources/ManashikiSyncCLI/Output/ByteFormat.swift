import Foundation

/// Sizes and rates for people: `4.0 MiB`, `12.3 MiB/s`. Locale-independent (durations: `DurationText`).
package enum ByteFormat {
    /// `0 B`, `512 B`, `64.0 KiB`, `4.0 MiB`, `1.50 GiB`.
    package static func bytes(_ count: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        guard count >= 1024 else { return "\(max(0, count)) B" }
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        let digits = unit >= 2 ? 2 : 1
        return String(format: "%.\(digits)f %@", value, units[unit])
    }

    /// `12.3 MiB/s`.
    package static func rate(_ bytesPerSecond: Double) -> String {
        guard bytesPerSecond.isFinite, bytesPerSecond > 0 else { return "-" }
        return bytes(Int64(bytesPerSecond)) + "/s"
    }
}

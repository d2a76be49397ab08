import Foundation

/// ISO 8601 timestamps as the registry writes them (`2026-11-29T16:00:00Z`, with or without
/// fractional seconds).
package enum ISO8601 {
    package static func date(from string: String) -> Date? {
        let plain = ISO8601DateFormatter()
        if let d = plain.date(from: string) { return d }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: string)
    }

    package static func string(from date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}

import Foundation
import ManashikiCore

/// IMF-fixdate formatting and parsing (`Sun, 06 Nov 1994 08:49:37 GMT`).
enum HTTPDate {
    private static func formatter() -> DateFormatter {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return f
    }

    /// Formats `date`.
    static func format(_ date: Date) -> String { formatter().string(from: date) }

    private static let cache = Locked((second: -1, text: ""))

    /// The current time, formatted at most once per second (for `Date` headers).
    static func now() -> String {
        let second = Int(Date().timeIntervalSince1970)
        if let hit = cache.withLock({ $0.second == second ? $0.text : nil }) { return hit }
        let text = format(Date(timeIntervalSince1970: TimeInterval(second)))
        cache.withLock { $0 = (second, text) }
        return text
    }

    /// Parses an IMF-fixdate.
    static func parse(_ s: String) -> Date? { formatter().date(from: s) }

    /// ISO 8601 with seconds and `Z` (`2026-11-29T16:00:00Z`).
    static func iso8601(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: date)
    }
}

extension HTTPDate {
    /// Parses an ISO 8601 date-time, with or without fractional seconds.
    static func parseISO8601(_ s: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        if let d = f.date(from: s) { return d }
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: s)
    }
}

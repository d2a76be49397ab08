import Foundation

/// Parses `Retry-After` (RFC 9110 §10.2.3): delta-seconds or an HTTP-date.
public enum RetryAfter {
    /// Seconds to wait, or nil when the header is absent or unparseable. A date in the past
    /// gives 0.
    public static func seconds(from value: String?, now: Date = Date()) -> Int? {
        guard let raw = value?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        if raw.allSatisfy({ $0.isASCII && $0.isNumber }) {
            return Int(raw) ?? Int.max // absurdly large values saturate; callers cap them
        }
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: raw) {
                return max(0, Int(date.timeIntervalSince(now).rounded(.up)))
            }
        }
        return nil
    }
}

import Foundation

/// Durations for people, the one place they are read and written: as people type them
/// (`90s`, `10m`, `6h`, `1d`, `1h30m`, `500ms`, or a bare number of seconds; `parse`), and
/// measured times rounded for display (`approximate`, the one duration formatter).
package enum DurationText {
    /// The longest duration accepted: a year, in seconds.
    package static let maxSeconds = 366 * 86_400

    /// Parses `text`, or returns nil when it is not a duration.
    package static func parse(_ text: String) -> Duration? {
        if let seconds = Int(text) { return (0...maxSeconds).contains(seconds) ? .seconds(seconds) : nil }
        var total: Duration = .zero
        var digits = ""
        let chars = Array(text)
        guard !chars.isEmpty else { return nil }
        var i = 0
        var sawUnit = false
        while i < chars.count {
            let c = chars[i]
            if c.isASCII, c.isNumber { digits.append(c); i += 1; continue }
            // Anything beyond a year is a typo, and larger numbers would overflow.
            guard let value = Int(digits), value <= Self.maxSeconds else { return nil }
            digits = ""
            if c == "m", i + 1 < chars.count, chars[i + 1] == "s" {
                total += .milliseconds(value); i += 2; sawUnit = true; continue
            }
            let unit: Int
            switch c {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            case "d": unit = 86400
            default: return nil
            }
            total += .seconds(value * unit)
            guard total <= .seconds(Self.maxSeconds) else { return nil }
            sawUnit = true
            i += 1
        }
        guard digits.isEmpty, sawUnit else { return nil }
        return total
    }

    /// A measured time, rounded for people: `0.4s`, `42s`, `3m05s`, `2h10m` (progress, ETAs, run times).
    package static func approximate(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "-" }
        if seconds < 10 { return String(format: "%.1fs", seconds) }
        let s = Int(seconds.rounded(.up))
        if s < 60 { return "\(s)s" }
        if s < 3600 { return String(format: "%dm%02ds", s / 60, s % 60) }
        return String(format: "%dh%02dm", s / 3600, (s % 3600) / 60)
    }
}

import Foundation

/// Durations for people, the one place they are read and written: as people type them
/// (`90s`, `10m`, `6h`, `1d`, `1h30m`, `500ms`, or a bare number of seconds; `parse`, and
/// `format` back exactly), and measured times rounded for display (`approximate`).
package enum DurationText {
    /// Parses `text`, or returns nil when it is not a duration.
    /// The longest duration accepted: a year, in seconds.
    package static let maxSeconds = 366 * 86_400

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

    /// `6h`, `10m`, `1h30m`, `45s`, `250ms`: the shortest exact spelling.
    package static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if seconds == 0 && attoseconds == 0 { return "0s" }
        if seconds < 1 { return "\(attoseconds / 1_000_000_000_000_000)ms" }
        var rest = seconds
        var text = ""
        for (unit, size) in [("d", Int64(86400)), ("h", 3600), ("m", 60), ("s", 1)] where rest >= size {
            text += "\(rest / size)\(unit)"
            rest %= size
        }
        return text
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

import Foundation

/// Transfer rates as people type them, in binary units like `curl --limit-rate` and
/// `rclone --bwlimit`: `20M` (20 MiB/s), `512K`, `1.5G`, `20MiB`, `20M/s`, or a bare number of
/// bytes per second.
package enum ByteRateText {
    /// The slowest rate accepted, bytes per second (1 KiB/s).
    package static let minimum: Int64 = 1 << 10
    /// The fastest, bytes per second (1 TiB/s).
    package static let maximum: Int64 = 1 << 40

    /// Bytes per second, or nil when `text` is not a rate within `minimum…maximum`.
    package static func parse(_ text: String) -> Int64? {
        var body = Substring(text)
        if body.hasSuffix("/s") { body = body.dropLast(2) }
        if body.hasSuffix("B") || body.hasSuffix("b") { body = body.dropLast() }
        if body.hasSuffix("i") { body = body.dropLast() }
        var multiplier: Double = 1
        switch body.last {
        case "K", "k": multiplier = 1024
        case "M", "m": multiplier = 1_048_576
        case "G", "g": multiplier = 1_073_741_824
        default: break
        }
        if multiplier > 1 { body = body.dropLast() }
        guard !body.isEmpty, body.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let number = Double(body) else { return nil }
        let rate = number * multiplier
        guard rate.isFinite, rate >= Double(minimum), rate <= Double(maximum) else { return nil }
        return Int64(rate.rounded())
    }
}

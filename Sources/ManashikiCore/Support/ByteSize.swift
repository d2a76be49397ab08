import Foundation

/// Byte counts as a manifest writes them: an integer (`4000000000`) or a string with a unit,
/// decimal (`"4GB"`, `"500 MB"`, `"1.5TB"`: powers of 1000) or binary (`"4GiB"`, `"512MiB"`:
/// powers of 1024); `B`, `KB`/`KiB` … `PB`/`PiB`, case-insensitive. A bare letter (`"4G"`) is
/// refused: the command line's `--max-rate 4G` means GiB, a disk vendor's 4 G means GB.
package enum ByteSize {
    /// The bytes `text` names, or nil when it is not a size.
    package static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isNumber || $0 == "." }
        guard !digits.isEmpty, let number = Double(digits), number.isFinite else { return nil }
        let unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
        guard let scale = scales[unit], scale > 1 || number == number.rounded() else { return nil }
        let bytes = number * scale
        guard bytes < 9.0e18 else { return nil }
        return Int64(bytes.rounded())
    }

    /// `0 B`, `512 B`, `64.0 KiB`, `4.0 MiB`, `1.50 GiB` (binary units, as every output of this
    /// package prints sizes; locale-independent).
    package static func text(_ count: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]
        guard count >= 1024 else { return "\(max(0, count)) B" }
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        let digits = unit >= 2 ? 2 : 1
        return String(format: "%.\(digits)f ", value) + units[unit]
    }

    private static let scales: [String: Double] = {
        var table: [String: Double] = ["": 1, "b": 1]
        for (i, letter) in ["k", "m", "g", "t", "p"].enumerated() {
            let power = Double(i + 1)
            table[letter + "b"] = pow(1000, power)
            table[letter + "ib"] = pow(1024, power)
        }
        return table
    }()
}

import Foundation

/// Makes text safe for one log line: no control characters, no line breaks.
package enum TextSanitizer {
    /// `text` with line breaks and tabs turned into spaces and other control characters
    /// (ESC, BEL, DEL, C1…) removed.
    package static func oneLine(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A, 0x0D, 0x09: if result.last != " " { result.append(" ") }
            case 0x00...0x1F, 0x7F...0x9F: continue
            default: result.append(scalar)
            }
        }
        return String(result).trimmingCharacters(in: .whitespaces)
    }
}

@testable import ManashikiSyncCLI

extension TextSanitizer {
    /// Whether `text` contains any control character other than `\n` (what the renderers'
    /// tests check their output against).
    static func containsControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { ($0.value < 0x20 && $0.value != 0x0A) || (0x7F...0x9F).contains($0.value) }
    }
}

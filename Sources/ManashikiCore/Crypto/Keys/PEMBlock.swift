import Foundation

/// One PEM block (RFC 7468's strict form) of a given label, read with bounds: the text is at
/// most `maximumLength` bytes, holds exactly one block, its lines are base64 (no headers), and
/// nothing but whitespace stands around it. Line ends may be LF or CRLF.
enum PEMBlock {
    /// Largest PEM text read.
    static let maximumLength = 8192

    /// The DER bytes of the one `label` block in `text`.
    static func decode(_ text: String, label: String) throws(PublicKeyError) -> [UInt8] {
        guard text.utf8.count <= maximumLength else { throw .malformed("PEM text longer than \(maximumLength) bytes") }
        let begin = "-----BEGIN \(label)-----", end = "-----END \(label)-----"
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
        var body = lines.drop(while: \.isEmpty)
        while body.last?.isEmpty == true { body.removeLast() }
        guard body.first == begin else {
            throw .malformed(text.contains("-----BEGIN ") ? "the PEM block is not \"\(label)\"" : "no \"\(begin)\" line")
        }
        guard body.count >= 3, body.last == end else { throw .malformed("no \"\(end)\" line after the key") }
        let base64 = body.dropFirst().dropLast()
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
        guard base64.allSatisfy({ !$0.isEmpty && $0.allSatisfy(alphabet.contains) }) else {
            throw .malformed("the PEM body has a line that is not base64 (headers and blank lines are not accepted)")
        }
        guard let data = Data(base64Encoded: base64.joined()) else { throw .malformed("the PEM body is not valid base64") }
        return Array(data)
    }
}

import Foundation

/// The small XML S3 and STS answer with (`<Error>`, `<ListBucketResult>`,
/// `<InitiateMultipartUploadResult>`, `<AssumeRoleWithWebIdentityResponse>`…), read into a tree of
/// elements. Written here rather than with `XMLParser`, which on Linux is FoundationXML and
/// libxml2, a dependency the self-contained release binary does not carry.
///
/// Bounded: the caller buffers at most a few MiB; elements nest at most `maxDepth` deep.
/// Attributes, namespaces, comments, processing instructions and DOCTYPE are skipped; the five
/// predefined entities, numeric character references and CDATA are decoded. Anything else
/// malformed throws `S3XML.Malformed`.
struct S3XML: Sendable, Hashable {
    /// One element: its local name, its text (the concatenated character data directly inside
    /// it) and its child elements in order.
    struct Element: Sendable, Hashable {
        var name: String
        var text = ""
        var children: [Element] = []

        /// The first child named `name`.
        func child(_ name: String) -> Element? { children.first { $0.name == name } }
        /// Every child named `name`, in order.
        func children(_ name: String) -> [Element] { children.filter { $0.name == name } }
        /// The text of the first child named `name`, trimmed.
        func value(_ name: String) -> String? { child(name).map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) } }
    }

    /// The body is not XML this reader understands.
    struct Malformed: Error, Sendable, Hashable, CustomStringConvertible {
        var reason: String
        var description: String { "not well-formed XML (\(reason))" }
    }

    /// The deepest nesting read.
    static let maxDepth = 32

    /// The document's root element.
    var root: Element

    /// Reads `data`.
    /// - Throws: `Malformed`.
    init(_ data: Data) throws {
        var reader = Reader(bytes: Array(data))
        root = try reader.document()
    }

    private struct Reader {
        let bytes: [UInt8]
        var i = 0

        mutating func document() throws -> Element {
            var root: Element?
            while true {
                skipSpace()
                guard i < bytes.count else { break }
                guard bytes[i] == UInt8(ascii: "<") else { throw Malformed(reason: "text outside the root element") }
                if try skipMarkup() { continue }
                guard root == nil else { throw Malformed(reason: "two root elements") }
                root = try element(depth: 0)
            }
            guard let root else { throw Malformed(reason: "no element") }
            return root
        }

        /// Skips `<?…?>`, `<!--…-->` and `<!DOCTYPE…>` at `i`; false when `i` starts an element.
        mutating func skipMarkup() throws -> Bool {
            if starts("<?") { try skip(past: "?>"); return true }
            if starts("<!--") { try skip(past: "-->"); return true }
            if starts("<!") && !starts("<![CDATA[") { try skip(past: ">"); return true }
            return false
        }

        mutating func element(depth: Int) throws -> Element {
            guard depth < S3XML.maxDepth else { throw Malformed(reason: "nested deeper than \(S3XML.maxDepth)") }
            i += 1 // <
            let name = localName(readName())
            guard !name.isEmpty else { throw Malformed(reason: "an element without a name") }
            var element = Element(name: name)
            // Attributes are skipped (quoted values may hold '>').
            while i < bytes.count, bytes[i] != UInt8(ascii: ">") {
                if starts("/>") { i += 2; return element }
                if bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") {
                    let quote = bytes[i]
                    i += 1
                    while i < bytes.count, bytes[i] != quote { i += 1 }
                }
                i += 1
            }
            guard i < bytes.count else { throw Malformed(reason: "<\(name) is not closed") }
            i += 1
            var text: [UInt8] = []
            while true {
                guard i < bytes.count else { throw Malformed(reason: "<\(name)> has no end tag") }
                if bytes[i] != UInt8(ascii: "<") {
                    let start = i
                    while i < bytes.count, bytes[i] != UInt8(ascii: "<") { i += 1 }
                    text += try Self.decodeEntities(bytes[start..<i])
                } else if starts("</") {
                    i += 2
                    let end = localName(readName())
                    skipSpace()
                    guard end == name, i < bytes.count, bytes[i] == UInt8(ascii: ">") else { throw Malformed(reason: "<\(name)> closed by </\(end)>") }
                    i += 1
                    element.text = String(decoding: text, as: UTF8.self)
                    return element
                } else if starts("<![CDATA[") {
                    i += 9
                    let start = i
                    try skip(past: "]]>")
                    text += bytes[start..<(i - 3)]
                } else if try !skipMarkup() {
                    element.children.append(try self.element(depth: depth + 1))
                }
            }
        }

        mutating func readName() -> String {
            let start = i
            while i < bytes.count, !" \t\r\n/>".utf8.contains(bytes[i]) { i += 1 }
            return String(decoding: bytes[start..<i], as: UTF8.self)
        }

        func localName(_ name: String) -> String { name.split(separator: ":").last.map(String.init) ?? name }

        func starts(_ prefix: String) -> Bool {
            let p = Array(prefix.utf8)
            return i + p.count <= bytes.count && bytes[i..<(i + p.count)].elementsEqual(p)
        }

        mutating func skip(past terminator: String) throws {
            while i < bytes.count, !starts(terminator) { i += 1 }
            guard i < bytes.count else { throw Malformed(reason: "unterminated \(terminator)") }
            i += terminator.utf8.count
        }

        mutating func skipSpace() {
            while i < bytes.count, " \t\r\n".utf8.contains(bytes[i]) { i += 1 }
        }

        /// `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` `&#NN;` `&#xNN;` decoded.
        static func decodeEntities(_ raw: ArraySlice<UInt8>) throws -> [UInt8] {
            guard raw.contains(UInt8(ascii: "&")) else { return Array(raw) }
            var out: [UInt8] = []
            var j = raw.startIndex
            while j < raw.endIndex {
                guard raw[j] == UInt8(ascii: "&") else { out.append(raw[j]); j += 1; continue }
                guard let semicolon = raw[j...].firstIndex(of: UInt8(ascii: ";")), semicolon - j <= 10 else { throw Malformed(reason: "a bare '&'") }
                let entity = String(decoding: raw[(j + 1)..<semicolon], as: UTF8.self)
                switch entity {
                case "amp": out.append(UInt8(ascii: "&"))
                case "lt": out.append(UInt8(ascii: "<"))
                case "gt": out.append(UInt8(ascii: ">"))
                case "quot": out.append(UInt8(ascii: "\""))
                case "apos": out.append(UInt8(ascii: "'"))
                default:
                    let hex = entity.hasPrefix("#x") || entity.hasPrefix("#X")
                    guard entity.hasPrefix("#"), let code = UInt32(entity.dropFirst(hex ? 2 : 1), radix: hex ? 16 : 10),
                          let scalar = Unicode.Scalar(code) else { throw Malformed(reason: "unknown entity &\(entity);") }
                    out += Array(String(Character(scalar)).utf8)
                }
                j = semicolon + 1
            }
            return out
        }
    }
}

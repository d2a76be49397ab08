import Foundation

/// One fenced block of a Markdown file: ```` ```swift run ```` … ```` ``` ````.
struct FencedBlock {
    /// The file, relative to the package root (`docs/sdk.md`).
    var file: String
    /// The line of the opening fence (1-based).
    var line: Int
    /// The first word of the info string (`swift`, `json`, `sh`), empty when there is none.
    var language: String
    /// The other words of the info string (`run`, `apple`, `no-run`, `exits=10,0`…).
    var markers: [String]
    /// The lines between the fences, with the fence's indentation removed.
    var lines: [String]

    /// Where the block is, as the doc tests name it: `docs/sdk.md:60`.
    var id: String { "\(file):\(line)" }
}

/// The Markdown files the doc tests read, and what they held when the generator read them.
enum DocFiles {
    /// The path of `file` relative to `root`.
    static func relative(_ file: URL, root: URL) -> String {
        let base = root.standardizedFileURL.path
        let path = file.standardizedFileURL.path
        return path.hasPrefix(base + "/") ? String(path.dropFirst(base.count + 1)) : path
    }

    /// FNV-1a (64 bits) over each file's relative path, a NUL, its bytes and a NUL, in order.
    /// `DocTests` computes the same over the files on disk.
    static func fingerprint(_ files: [URL], root: URL) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for file in files {
            let bytes = Array(relative(file, root: root).utf8) + [0] + ((try? Array(Data(contentsOf: file))) ?? []) + [0]
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        }
        return hash
    }
}

/// Finds fenced code blocks (backticks, any indentation, so blocks inside list items count).
enum MarkdownFences {
    /// Every fenced block of `file`, in order.
    static func blocks(in file: URL, root: URL) throws -> [FencedBlock] {
        let text = try String(contentsOf: file, encoding: .utf8)
        let name = DocFiles.relative(file, root: root)
        var blocks: [FencedBlock] = []
        var open: (block: FencedBlock, indent: Int, ticks: Int)?
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let indent = line.prefix { $0 == " " }.count
            let rest = line.dropFirst(indent)
            let ticks = rest.prefix { $0 == "`" }.count
            if var current = open {
                if ticks >= current.ticks, rest.dropFirst(ticks).allSatisfy({ $0 == " " }) {
                    blocks.append(current.block)
                    open = nil
                } else {
                    current.block.lines.append(String(line.dropFirst(min(indent, current.indent))))
                    open = current
                }
            } else if ticks >= 3 {
                let words = rest.dropFirst(ticks).split(separator: " ").map(String.init)
                let block = FencedBlock(file: name, line: index + 1, language: words.first ?? "",
                                        markers: Array(words.dropFirst()), lines: [])
                open = (block, indent, ticks)
            }
        }
        return blocks
    }
}

import Foundation

/// `manashiki-doc-blocks ROOT TABLE [MARKDOWN SWIFT]...`: the DocBlocksPlugin's generator. Reads
/// each Markdown file, writes its compiled Swift blocks to the Swift file named after it, and the
/// table of every block (with the fingerprint of the files read) to TABLE.
@main
enum DocBlocksCommand {
    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count >= 2, arguments.count % 2 == 0 else {
            FileHandle.standardError.write(Data("usage: manashiki-doc-blocks ROOT TABLE [MARKDOWN SWIFT]...\n".utf8))
            exit(2)
        }
        let root = URL(fileURLWithPath: arguments[0])
        let pairs = stride(from: 2, to: arguments.count, by: 2).map {
            (URL(fileURLWithPath: arguments[$0]), URL(fileURLWithPath: arguments[$0 + 1]))
        }
        var all: [FencedBlock] = []
        for (markdown, swift) in pairs {
            let blocks = try MarkdownFences.blocks(in: markdown, root: root)
            try SnippetSources.write(SnippetSources.file(for: blocks, of: DocFiles.relative(markdown, root: root)), to: swift)
            all += blocks
        }
        let fingerprint = DocFiles.fingerprint(pairs.map(\.0), root: root)
        try SnippetSources.write(SnippetSources.table(all, fingerprint: fingerprint), to: URL(fileURLWithPath: arguments[1]))
    }
}

import Foundation
@testable import manashiki_doc_snippets

/// The blocks of README.md and docs/*.md as the DocBlocksPlugin found them at build time, and
/// the marker convention of docs/development.md ("Doc tests").
enum DocBlockCatalog {
    /// The package root.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The markers each kind of block may carry (`file=NAME` and `exits=…` are matched by prefix).
    static let knownMarkers: [String: Set<String>] = [
        "swift": ["run", "apple", "file", "package"],
        "json": ["invalid", "entry", "fragment", "other", "file="],
        "sh": ["run", "no-run", "exits="],
    ]

    /// `bash` and `shell` blocks are shell blocks too.
    static func kind(_ block: DocBlock) -> String {
        ["bash", "shell", "console", "sh"].contains(block.language) ? "sh" : block.language
    }

    /// The block at `id` (`docs/sdk.md:60`).
    static func block(_ id: String) -> DocBlock {
        guard let block = docBlocks.first(where: { $0.id == id }) else { fatalError("no block \(id)") }
        return block
    }

    /// Ids of the blocks of `kind` for which `include` holds.
    static func ids(_ kind: String, where include: (DocBlock) -> Bool = { _ in true }) -> [String] {
        docBlocks.filter { self.kind($0) == kind && include($0) }.map(\.id)
    }

    /// The value of a `name=value` marker.
    static func value(_ name: String, of block: DocBlock) -> String? {
        block.markers.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
    }

    /// Markers that the convention does not know, as `file:line: marker`.
    static var unknownMarkers: [String] {
        docBlocks.flatMap { block -> [String] in
            guard let known = knownMarkers[kind(block)] else { return [] }
            return block.markers.filter { marker in
                !known.contains(marker) && !known.contains { $0.hasSuffix("=") && marker.hasPrefix($0) }
            }.map { "\(block.id): \($0)" }
        }
    }

    /// README.md and docs/*.md on disk, as the plugin lists them (`DocFiles.list`).
    static var filesOnDisk: [URL] {
        let docs = root.appendingPathComponent("docs")
        let guides = (try? FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil)) ?? []
        return [root.appendingPathComponent("README.md")] + guides.filter { $0.pathExtension == "md" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// `DocFiles.fingerprint` of the files on disk: FNV-1a over each relative path, NUL, bytes, NUL.
    static var fingerprintOnDisk: UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for file in filesOnDisk {
            let name = file.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1)
            let bytes = Array(name.utf8) + [0] + ((try? Array(Data(contentsOf: file))) ?? []) + [0]
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        }
        return hash
    }
}

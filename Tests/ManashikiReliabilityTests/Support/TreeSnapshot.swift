import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything under a directory, as `lstat` sees it (symbolic links not followed): each path's
/// type, mode, size, modification time, link target and the SHA-256 of a regular file's bytes.
/// Two snapshots are equal when nothing was created, removed or changed: the hostile-input tests
/// compare the file system beside the store before and after a run.
struct TreeSnapshot: Equatable, CustomStringConvertible {
    struct Entry: Equatable {
        var mode: UInt32
        var size: Int64
        /// Microseconds since 1970.
        var modified: Int64
        var link: String?
        var sha256: String?
    }

    var entries: [String: Entry]

    /// Walks `root`, leaving out the paths in `excluding` (relative to `root`, e.g. the store).
    static func capture(_ root: URL, excluding: Set<String> = []) -> TreeSnapshot {
        var entries: [String: Entry] = [:]
        func walk(_ relative: String) {
            let path = relative.isEmpty ? root.path : root.path + "/" + relative
            var info = stat()
            guard lstat(path, &info) == 0 else { return }
            let type = info.st_mode & S_IFMT
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            var entry = Entry(mode: UInt32(info.st_mode), size: Int64(info.st_size),
                              modified: Int64(((modified?.timeIntervalSince1970 ?? 0) * 1e6).rounded()))
            if type == S_IFLNK { entry.link = try? FileManager.default.destinationOfSymbolicLink(atPath: path) }
            // A regular file's bytes are hashed up to 16 MiB (a larger one, a test's sparse
            // 200 MB index, is compared by size and time); nothing else is ever opened (a FIFO).
            if type == S_IFREG, info.st_size <= 16 << 20, let bytes = FileManager.default.contents(atPath: path) {
                entry.sha256 = SHA256Hasher.hash(bytes).hex
            }
            if type == S_IFDIR { entry.size = 0; entry.modified = 0 } // listed by their children
            entries[relative] = entry
            guard type == S_IFDIR else { return }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                let child = relative.isEmpty ? name : relative + "/" + name
                if !excluding.contains(child) { walk(child) }
            }
        }
        walk("")
        return TreeSnapshot(entries: entries)
    }

    /// What differs from `other`: paths added, removed or changed.
    func difference(from other: TreeSnapshot) -> [String] {
        let paths = Set(entries.keys).union(other.entries.keys)
        return paths.sorted().compactMap { path in
            switch (other.entries[path], entries[path]) {
            case (nil, _?): return "+ \(path)"
            case (_?, nil): return "- \(path)"
            case (let a?, let b?) where a != b: return "~ \(path)"
            default: return nil
            }
        }
    }

    var description: String { entries.keys.sorted().joined(separator: "\n") }
}

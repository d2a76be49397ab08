import Foundation
import Testing
import ManashikiTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The regular files at the top of a store (models and anything else), with bytes and inode.
struct StoreSnapshot: Sendable {
    struct Entry: Sendable, Equatable {
        var bytes: Data
        var inode: UInt64
    }
    var files: [String: Entry]

    static func capture(_ store: URL) -> StoreSnapshot {
        var files: [String: Entry] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: store.path)) ?? [] where name != ".manashiki" {
            let path = store.appendingPathComponent(name).path
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            files[name] = Entry(bytes: FileManager.default.contents(atPath: path) ?? Data(), inode: UInt64(st.st_ino))
        }
        return StoreSnapshot(files: files)
    }
}

/// The standard outcome every failure case must show (docs/reliability.md).
enum Invariants {
    /// Stray files in `<store>/.manashiki/partial`: anything but a partial download kept to be
    /// resumed together with its valid sidecar (temporary files, a partial without a usable
    /// sidecar, a sidecar without its partial).
    static func partials(_ store: URL) -> [String] { PartialFolder.strays(in: store) }

    /// Anything at the top of the store that is neither `.manashiki` nor in `allowed`.
    static func strays(_ store: URL, allowed: Set<String>) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: store.path)) ?? []).filter { $0 != ".manashiki" && !allowed.contains($0) }
    }

    /// Asserts the standard outcome after a failure:
    /// - each model in `failed` that was installed `before` is byte-identical with the same
    ///   inode (and one that was not installed is still absent);
    /// - no stray file is left in `<store>/.manashiki/partial` (a kept partial with a valid
    ///   sidecar, there to be resumed, is allowed);
    /// - each model in `synced` holds exactly its expected bytes;
    /// - nothing was pruned: every other file of `before` is unchanged (bytes and inode).
    /// Returns whether it all held (each violation is also recorded as an issue).
    @discardableResult
    static func expectStandardOutcome(store: URL, before: StoreSnapshot, failed: [String], synced: [String: Data] = [:],
                                      sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let after = StoreSnapshot.capture(store)
        var ok = true
        func check(_ condition: Bool, _ message: String) {
            if !condition { ok = false; Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation) }
        }
        for id in failed {
            let name = "\(id).bin"
            if let previous = before.files[name] {
                let now = after.files[name]
                check(now?.bytes == previous.bytes, "\(name): the previously verified file changed (DATA LOSS)")
                check(now?.inode == previous.inode, "\(name): the previous file was replaced (inode \(previous.inode) → \(now.map { String($0.inode) } ?? "gone"))")
            } else {
                check(after.files[name] == nil, "\(name): a failed model was installed anyway")
            }
        }
        let left = partials(store)
        check(left.isEmpty, "temporary files left behind: \(left)")
        for (id, bytes) in synced {
            check(after.files["\(id).bin"]?.bytes == bytes, "\(id).bin: not synced with the registry's bytes")
        }
        let touched = Set(failed.map { "\($0).bin" } + synced.keys.map { "\($0).bin" })
        for (name, entry) in before.files where !touched.contains(name) {
            check(after.files[name] == entry, "\(name): changed or removed (nothing may be pruned on failure)")
        }
        return ok
    }
}

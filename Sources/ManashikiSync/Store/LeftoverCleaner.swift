import Foundation
import Manashiki
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Removes what a crashed run left behind: `.manashiki/partial/*.partial` files nobody is
/// writing (their flock can be taken) and temporary files of interrupted durable writes in
/// `.manashiki/` (`state.json.tmp.*`, `last-run.json.tmp.*`).
///
/// Call it while holding the `StoreLock` (no other agent then writes the state). A partial file
/// whose flock is held by a live download is left alone.
public enum LeftoverCleaner {
    /// Removes leftovers and returns the names removed.
    @discardableResult
    public static func clean(_ layout: StoreLayout) -> [String] {
        // The SDK removes partial files nobody holds whenever it opens the storage directory.
        var removed = ((try? StorageDirectory(url: layout.directory))?.abandonedPartialsRemoved ?? []).map { "partial/\($0)" }
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: layout.metadataDirectory.path)) ?? [] where DurableFile.isTemporary(name) {
            if unlink(layout.metadataDirectory.appendingPathComponent(name).path) == 0 { removed.append(name) }
        }
        return removed.sorted()
    }
}

import Foundation
import Manashiki

/// Removes what a crashed run left behind: `.manashiki/partial/*.partial` files nobody is
/// writing (their flock can be taken) and temporary files of interrupted durable writes in
/// `.manashiki/` (`state.json.tmp.*`, `last-run.json.tmp.*`).
///
/// Call it while holding the `StoreLock` (no other agent then writes the state). A partial file
/// whose flock is held by a live download is left alone.
package enum LeftoverCleaner {
    /// Removes leftovers and returns the names removed.
    ///
    /// Partial downloads kept to be resumed (a valid sidecar) stay, unless `models` is given
    /// and does not hold their model (it left the manifest, or was pruned), or they were not
    /// touched for `retention` seconds.
    @discardableResult
    package static func clean(_ layout: StoreLayout, keepingPartialsOf models: Set<String>? = nil,
                             retention: TimeInterval? = nil) -> [String] {
        // The SDK removes partial files nobody holds and nothing can resume whenever it opens
        // the storage directory; with models or a retention to apply, that is one sweep here
        // instead (a second sweep could find a partial still locked by a child process spawned
        // after the first released it, and keep it).
        let sweeps = models != nil || retention != nil
        let store = try? StorageDirectory(url: layout.directory, removingAbandonedPartials: !sweeps)
        var removed = store?.abandonedPartialsRemoved ?? []
        if let store, sweeps {
            removed += store.removeAbandonedPartials(olderThan: retention, keepingOnly: models)
        }
        var names = removed.map { "partial/\($0)" }
        if let metadata = store?.metadata {
            for name in metadata.names() where DurableFile.isTemporary(name) {
                if metadata.remove(name) == 0 { names.append(name) }
            }
        }
        return names.sorted()
    }
}

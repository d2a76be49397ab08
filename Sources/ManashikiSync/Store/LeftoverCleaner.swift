import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Removes what a crashed run left behind: `.manashiki/partial/*.partial` files nobody is
/// writing (their flock can be taken) and `.manashiki/state.json.tmp*`.
///
/// Call it while holding the `StoreLock` (no other agent then writes the state). A partial file
/// whose flock is held by a live download is left alone.
public enum LeftoverCleaner {
    /// Removes leftovers and returns the names removed.
    @discardableResult
    public static func clean(_ layout: StoreLayout) -> [String] {
        var removed: [String] = []
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: layout.partialDirectory.path)) ?? [] where name.hasSuffix(".partial") {
            let path = layout.partialDirectory.appendingPathComponent(name).path
            guard let info = POSIXFile.lstatInfo(path), POSIXFile.isRegular(info) else { continue }
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            if POSIXFile.tryLock(fd), unlink(path) == 0 { removed.append("partial/\(name)") }
            close(fd)
        }
        for name in (try? fm.contentsOfDirectory(atPath: layout.metadataDirectory.path)) ?? [] where name.hasPrefix("state.json.tmp") {
            if unlink(layout.metadataDirectory.appendingPathComponent(name).path) == 0 { removed.append(name) }
        }
        return removed.sorted()
    }
}

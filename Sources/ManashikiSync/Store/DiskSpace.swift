import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Free space on a volume, for the plan's "enough disk?" check.
@usableFromInline package enum DiskSpace {
    /// Bytes available for models on the volume that holds (or will hold) `url`: on macOS, iOS
    /// and visionOS the system's capacity for important resources (free plus purgeable space),
    /// elsewhere the file system's space available to this user (`statvfs`; `statfs` on Apple
    /// platforms, see `VolumeCapacity.availableToUser`). Nil if unknown.
    @usableFromInline package static func available(at url: URL) -> Int64? {
        guard let volume = existingAncestor(of: url) else { return nil }
        return choose(importantUsage: VolumeCapacity.importantUsage(at: volume), statvfs: statvfsAvailable(volume))
    }

    /// Which figure to trust. The important-usage capacity includes purgeable space, so it is
    /// the larger and the right one where the system reports it; some volumes (external and
    /// network drives) report 0 there, which is not believed when `statvfs` sees free space.
    static func choose(importantUsage: Int64?, statvfs: Int64?) -> Int64? {
        if let important = importantUsage, important > 0 { return max(important, statvfs ?? 0) }
        return statvfs ?? importantUsage
    }

    /// `url`, or its nearest ancestor that exists (a store that is not created yet lives on
    /// its parent's volume).
    static func existingAncestor(of url: URL, exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> URL? {
        var candidate = url.standardizedFileURL
        while !exists(candidate.path) {
            let parent = candidate.deletingLastPathComponent()
            if parent.path == candidate.path { return nil }
            candidate = parent
        }
        return candidate
    }

    /// The file system's bytes available to this user (`VolumeCapacity.availableToUser`:
    /// `statvfs`, or `statfs` on Apple platforms).
    static func statvfsAvailable(_ url: URL) -> Int64? {
        VolumeCapacity.availableToUser(atPath: url.path)
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File metadata whose spelling differs per platform: a `stat`'s modification time, and the
/// iCloud/iTunes backup exclusion of what can be downloaded again.
enum FileMetadata {
    /// A `stat`'s modification time in nanoseconds since 1970: `st_mtimespec` on Apple
    /// platforms (`<sys/stat.h>`), `st_mtim` on Linux.
    static func modificationNanoseconds(_ info: stat) -> Int64 {
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        return Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
        return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
    }

    /// Marks `url` as excluded from backups (`URLResourceValues.isExcludedFromBackup`: macOS
    /// 10.10+, iOS 8+, Catalyst, tvOS 9+, watchOS 2+, visionOS 1+): models and partial downloads can be
    /// fetched again, and Apple's storage guidelines ask that such files are not backed up. Best effort: a
    /// failure leaves the file backed up. Nothing to do on Linux.
    static func excludeFromBackup(_ url: URL) {
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var u = url
        try? u.setResourceValues(values)
        #endif
    }
}

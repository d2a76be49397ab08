import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The capacity Apple's storage APIs report for "important" resources (what the user asked
/// for): free space plus purgeable space the system frees on demand. `statvfs` leaves the
/// purgeable part out, so on a full-looking iPhone a plan would be refused although the system
/// would make room.
///
/// `URLResourceValues.volumeAvailableCapacityForImportantUsage`: iOS 11, iPadOS 11, Mac
/// Catalyst 13.1, macOS 10.13, visionOS 1; not available on tvOS or watchOS
/// (developer.apple.com/documentation/foundation/urlresourcevalues/volumeavailablecapacityforimportantusage).
/// Disk-space APIs are "required reason" APIs: an app that ships this library declares
/// `NSPrivacyAccessedAPICategoryDiskSpace` (reason `E174.1`) in its privacy manifest.
enum VolumeCapacity {
    /// Bytes available for important resources on the volume holding `url`, or nil where the
    /// platform has no such figure (tvOS, watchOS, Linux) or it cannot be read.
    static func importantUsage(at url: URL) -> Int64? {
        #if os(macOS) || os(iOS) || os(visionOS)
        return (try? url.resourceValues(forKeys: [.volumeAvailableCapacityForImportantUsageKey]))?.volumeAvailableCapacityForImportantUsage
        #else
        return nil
        #endif
    }

    /// Bytes available to this user on the volume holding `path`, or nil. Apple platforms:
    /// `statfs`, because Darwin's `statvfs` has 32-bit block counts (`fsblkcnt_t`) and wraps them
    /// modulo 2^32 on bigger volumes (2 TiB at the 512-byte blocks NFS and SMB shares report, which
    /// is where the important-usage figure is 0 and this one decides; CPython gh-87804 and PHP
    /// #8048 moved to `statfs` for it); its `f_bavail` is 64-bit, counted in `f_bsize` blocks.
    /// Linux: `statvfs`, whose counts are 64-bit and in `f_frsize` units.
    static func availableToUser(atPath path: String) -> Int64? {
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        var info = statfs()
        guard statfs(path, &info) == 0 else { return nil }
        return bytes(info.f_bavail, of: info.f_bsize)
        #else
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return bytes(info.f_bavail, of: info.f_frsize)
        #endif
    }

    /// `blocks` × `size`, saturating: a file system that reports "unknown" as all ones (some
    /// FUSE and SMB implementations) must not trap the conversion.
    static func bytes(_ blocks: some BinaryInteger, of size: some BinaryInteger) -> Int64 {
        let (product, overflow) = Int64(clamping: blocks).multipliedReportingOverflow(by: Int64(clamping: size))
        return overflow ? .max : product
    }
}

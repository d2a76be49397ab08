import Foundation

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
}

// Apple-only members the ManashikiSync target uses (see shims/Manashiki.swift for the form).
import Foundation; import Glibc

// foundation/processinfo/isiosapponmac: iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1;
// …/ismaccatalystapp: iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1
extension ProcessInfo {
    var isiOSAppOnMac: Bool { false }
    var isMacCatalystApp: Bool { false }
}
// foundation/urlresourcevalues/volumeavailablecapacityforimportantusage: macOS 10.13, iOS 11,
// Mac Catalyst 13.1, visionOS 1; unavailable on tvOS and watchOS
//@only iOS,macCatalyst,macOS,visionOS
extension URLResourceKey { static let volumeAvailableCapacityForImportantUsageKey = URLResourceKey(rawValue: "NSURLVolumeAvailableCapacityForImportantUsageKey") }
extension URLResourceValues { var volumeAvailableCapacityForImportantUsage: Int64? { nil } }
//@end

import Foundation
import Manashiki

/// The device models are checked against: its platform, OS version, memory and disk.
///
/// By default the current machine (`DeviceProfile.current`); a manifest can describe another
/// device to provision an image for it. A `nil` field is not checked.
///
/// ```swift
/// let phone = DeviceProfile(platform: .ios, osVersion: "17.2", memoryMB: 6144)
/// phone.incompatibilities(with: record.compatibility)   // [] when the model fits
/// ```
public struct DeviceProfile: Sendable, Hashable, Codable {
    /// The device's platform.
    public var platform: Platform
    /// The OS version, dotted (`17.2`); nil skips the `min_os` check.
    public var osVersion: String?
    /// Physical memory in MiB; nil skips the RAM check.
    public var memoryMB: Int?
    /// Disk available to models in MiB; nil uses the store volume's free space when the
    /// profile is the current machine, and skips the check otherwise.
    public var diskMB: Int?

    /// Creates a profile.
    public init(platform: Platform, osVersion: String? = nil, memoryMB: Int? = nil, diskMB: Int? = nil) {
        self.platform = platform
        self.osVersion = osVersion
        self.memoryMB = memoryMB
        self.diskMB = diskMB
    }

    /// The machine this code runs on, as `DeviceDetection` reads it: `ios`, or `ipados` on an
    /// iPad; `macos` for a Mac, a Mac Catalyst app or an iOS app on a Mac; the OS version from
    /// `ProcessInfo`, and the physical memory.
    ///
    /// The OS version is left unknown (so `min_os` is not enforced) where the reported number
    /// is not the OS release a record's `min_os` means: on Linux (`ProcessInfo` reports the
    /// kernel release, 6.x), and for Catalyst and iOS apps on a Mac. Set `device.osVersion` in
    /// the manifest to check it there.
    public static var current: DeviceProfile {
        let detected = DeviceDetection.detect(.current)
        return DeviceProfile(
            platform: detected.platform,
            osVersion: detected.osVersion,
            memoryMB: Int(ProcessInfo.processInfo.physicalMemory / (1 << 20))
        )
    }

    /// Every reason a model with `compatibility` cannot run here (each says itself in words
    /// with `description`); empty when it can.
    ///
    /// - Parameter freeDiskMB: the disk space to check `min_disk_mb` against when the profile
    ///   has no `diskMB`.
    public func incompatibilities(with compatibility: ModelCompatibility, freeDiskMB: Int? = nil) -> [Incompatibility] {
        var problems: [Incompatibility] = []
        if !compatibility.platforms.contains(platform) {
            problems.append(.platform(supported: compatibility.platforms, device: platform))
        }
        if let minOs = compatibility.minOs, let osVersion {
            if let need = ModelVersion(minOs), let have = ModelVersion(osVersion), have < need {
                problems.append(.osVersion(needs: minOs, device: osVersion))
            }
        }
        if let need = compatibility.minRamMb, let memoryMB, memoryMB < need {
            problems.append(.memory(needsMB: need, deviceMB: memoryMB))
        }
        if let need = compatibility.minDiskMb, let disk = diskMB ?? freeDiskMB, disk < need {
            problems.append(diskMB == nil ? .freeDisk(needsMB: need, freeMB: disk) : .profileDisk(needsMB: need, profileMB: disk))
        }
        return problems
    }
}

import Foundation
import Manashiki

/// One reason a model cannot run on a device (`DeviceProfile.incompatibilities(with:)`);
/// its `description` says it in words.
public enum Incompatibility: Sendable, Hashable, CustomStringConvertible {
    /// The model supports other platforms only.
    case platform(supported: [Platform], device: Platform)
    /// The model needs a later OS version than the device's.
    case osVersion(needs: String, device: String)
    /// The model needs more memory than the device has.
    case memory(needsMB: Int, deviceMB: Int)
    /// The model needs more disk than the device profile's `diskMB`.
    case profileDisk(needsMB: Int, profileMB: Int)
    /// The model needs more disk than is free on the store's volume: freeing space is the fix.
    case freeDisk(needsMB: Int, freeMB: Int)

    /// Whether freeing space on the store's volume removes this reason.
    public var isFreeDiskShortfall: Bool {
        if case .freeDisk = self { return true }
        return false
    }

    /// The reason in words.
    public var description: String {
        switch self {
        case .platform(let supported, let device):
            let list = supported.map(\.rawValue).joined(separator: ", ")
            return "supports \(list.isEmpty ? "no platform" : list), not \(device)"
        case .osVersion(let needs, let device):
            return "needs OS \(needs) or later, the device has \(device)"
        case .memory(let needs, let device):
            return "needs \(needs) MiB of memory, the device has \(device) MiB"
        case .profileDisk(let needs, let profile):
            return "needs \(needs) MiB of disk, the device profile has \(profile) MiB"
        case .freeDisk(let needs, let free):
            return "needs \(needs) MiB of disk, \(free) MiB are free on the store's volume"
        }
    }
}

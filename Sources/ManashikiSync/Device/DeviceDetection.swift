import Foundation
import Manashiki

/// What the system reports about the device, gathered once per run (`Platform/DeviceFacts+Current.swift`)
/// and turned into a platform and an OS version by `DeviceDetection`, a pure table tested on Linux.
struct DeviceFacts: Sendable, Hashable {
    /// The OS the code was compiled for (`Platform.current`: `ios` for iPhone, iPad, Mac
    /// Catalyst and iOS apps on a Mac alike).
    var compiledFor: Platform
    /// The hardware model (`hw.machine`, or `SIMULATOR_MODEL_IDENTIFIER` in a simulator):
    /// `iPhone15,2`, `iPad13,4`, `Mac14,2`; nil when unknown.
    var modelIdentifier: String?
    /// `ProcessInfo.isiOSAppOnMac`: an iPhone/iPad app running on an Apple silicon Mac.
    var isiOSAppOnMac: Bool
    /// `ProcessInfo.isMacCatalystApp`: a Mac Catalyst app.
    var isMacCatalystApp: Bool
    /// `ProcessInfo.operatingSystemVersion`, dotted; nil off Apple platforms.
    var osVersion: String?
}

/// Which platform a device counts as for `compatibility.platforms` and `min_os`.
///
/// | compiled for | facts | platform | OS version |
/// |---|---|---|---|
/// | iOS | an iPhone (or unknown model) | `ios` | iOS version |
/// | iOS | model `iPad…` | `ipados` | iPadOS version (the same number) |
/// | iOS | Mac Catalyst, or an iOS app on a Mac | `macos` | unknown: `min_os` is not checked (the number reported there is not the macOS release a record's `min_os` means) |
/// | macOS, visionOS, watchOS, tvOS | – | that platform | its version |
/// | Linux | – | `linux` | unknown (`ProcessInfo` reports the kernel) |
enum DeviceDetection {
    static func detect(_ facts: DeviceFacts) -> (platform: Platform, osVersion: String?) {
        switch facts.compiledFor {
        case .ios:
            if facts.isMacCatalystApp || facts.isiOSAppOnMac { return (.macos, nil) }
            if let model = facts.modelIdentifier, model.hasPrefix("iPad") { return (.ipados, facts.osVersion) }
            return (.ios, facts.osVersion)
        case .linux:
            return (.linux, nil)
        default:
            return (facts.compiledFor, facts.osVersion)
        }
    }
}

import Foundation
import ManashikiCore

extension Platform {
    /// The operating system this code was compiled for: `ios` on iPhone and iPad alike (and in
    /// Mac Catalyst and iPad apps on a Mac), `visionos`, `macos`, `watchos`, `tvos`, `linux`.
    /// It is decided at compile time; `DeviceProfile.current` (ManashikiSync) refines it at run
    /// time (`ipados` on an iPad, `macos` for an iOS app running on a Mac).
    public static var current: Platform { Platform(OperatingSystem.current) }

    /// The wire value of `system` (a system the contract does not name reads as `linux`).
    init(_ system: OperatingSystem) {
        switch system {
        case .iOS: self = .ios
        case .macOS: self = .macos
        case .visionOS: self = .visionos
        case .watchOS: self = .watchos
        case .tvOS: self = .tvos
        case .android: self = .android
        case .windows: self = .windows
        case .linux, .other: self = .linux
        }
    }
}

import Foundation

extension Platform {
    /// The operating system this code was compiled for: `ios` on iPhone and iPad alike (and in
    /// Mac Catalyst and iPad apps on a Mac), `visionos`, `macos`, `watchos`, `tvos`, `linux`.
    /// It is decided at compile time; `DeviceProfile.current` (ManashikiSync) refines it at run
    /// time (`ipados` on an iPad, `macos` for an iOS app running on a Mac).
    public static var current: Platform {
        #if os(iOS)
        return .ios
        #elseif os(macOS)
        return .macos
        #elseif os(visionOS)
        return .visionos
        #elseif os(watchOS)
        return .watchos
        #elseif os(tvOS)
        return .tvos
        #elseif os(Android)
        return .android
        #elseif os(Windows)
        return .windows
        #else
        return .linux
        #endif
    }
}

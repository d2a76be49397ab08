/// The operating system this code was compiled for: the package's one compile-time switch over
/// the OS as a whole. The SDK's `Platform.current` is its wire value (`ios`, `linux`…), and
/// `ProcessCapture` names it in messages (`name`).
package enum OperatingSystem: Sendable, Hashable, CaseIterable {
    /// iOS: iPhone and iPad, and Mac Catalyst and iPad apps on a Mac (`os(iOS)` holds there).
    case iOS
    /// macOS.
    case macOS
    /// visionOS.
    case visionOS
    /// watchOS.
    case watchOS
    /// tvOS.
    case tvOS
    /// Android.
    case android
    /// Windows.
    case windows
    /// Linux.
    case linux
    /// Another system (a BSD, WASI…), which the package is not written for.
    case other

    /// The system this code was compiled for.
    package static var current: OperatingSystem {
        #if os(iOS)
        return .iOS
        #elseif os(macOS)
        return .macOS
        #elseif os(visionOS)
        return .visionOS
        #elseif os(watchOS)
        return .watchOS
        #elseif os(tvOS)
        return .tvOS
        #elseif os(Android)
        return .android
        #elseif os(Windows)
        return .windows
        #elseif os(Linux)
        return .linux
        #else
        return .other
        #endif
    }

    /// The system's name in messages ("Linux", "macOS", "iOS"…); "this platform" for the
    /// systems the package is not written for (Android, Windows, others).
    package var name: String {
        switch self {
        case .iOS: "iOS"
        case .macOS: "macOS"
        case .visionOS: "visionOS"
        case .watchOS: "watchOS"
        case .tvOS: "tvOS"
        case .linux: "Linux"
        case .android, .windows, .other: "this platform"
        }
    }
}

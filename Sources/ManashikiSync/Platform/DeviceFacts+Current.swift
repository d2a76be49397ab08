import Foundation
import Manashiki
#if canImport(Darwin)
import Darwin
#endif

extension DeviceFacts {
    /// This device's facts.
    ///
    /// Availability (developer.apple.com/documentation/foundation/processinfo):
    /// `isiOSAppOnMac` iOS 14, macOS 11, Mac Catalyst 14, tvOS 14, watchOS 7, visionOS 1;
    /// `isMacCatalystApp` iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1 — all below the
    /// deployment targets. The model comes from `sysctlbyname` (Darwin, every Apple platform;
    /// not a required-reason API) rather than `UIDevice.userInterfaceIdiom`,
    /// which is main-actor isolated and absent on macOS and watchOS.
    static var current: DeviceFacts {
        let info = ProcessInfo.processInfo
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        let v = info.operatingSystemVersion
        return DeviceFacts(compiledFor: .current, modelIdentifier: modelIdentifier(info),
                           isiOSAppOnMac: info.isiOSAppOnMac, isMacCatalystApp: info.isMacCatalystApp,
                           osVersion: "\(v.majorVersion).\(v.minorVersion).\(v.patchVersion)")
        #else
        return DeviceFacts(compiledFor: .current, modelIdentifier: nil, isiOSAppOnMac: false, isMacCatalystApp: false,
                           osVersion: nil)
        #endif
    }

    #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
    /// `iPad13,4`, `iPhone15,2`, `Mac14,2`…; in a simulator `hw.machine` is the Mac's CPU, so
    /// the simulated model comes from the environment. The model is `hw.machine` on iOS,
    /// tvOS, watchOS and visionOS, but `hw.model` on macOS (there `hw.machine` is `arm64` or
    /// `x86_64`; on iOS `hw.model` is a board name such as `D16AP`).
    private static func modelIdentifier(_ info: ProcessInfo) -> String? {
        if let simulated = info.environment["SIMULATOR_MODEL_IDENTIFIER"], !simulated.isEmpty { return simulated }
        #if os(macOS)
        let name = "hw.model"
        #else
        let name = "hw.machine"
        #endif
        var size = 0
        guard sysctlbyname(name, nil, &size, nil, 0) == 0, size > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: size)
        guard sysctlbyname(name, &buffer, &size, nil, 0) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }
    #endif
}

import Foundation
import Testing
import Manashiki
@testable import ManashikiSync

@Suite("Device detection: which platform and OS version a device counts as")
struct DeviceDetectionTests {
    /// (label, facts, expected platform, expected OS version)
    static let table: [(String, DeviceFacts, Platform, String?)] = [
        ("an iPhone", DeviceFacts(compiledFor: .ios, modelIdentifier: "iPhone15,2", isiOSAppOnMac: false, isMacCatalystApp: false, osVersion: "17.2.0"), .ios, "17.2.0"),
        ("an iPad", DeviceFacts(compiledFor: .ios, modelIdentifier: "iPad13,4", isiOSAppOnMac: false, isMacCatalystApp: false, osVersion: "17.2.0"), .ipados, "17.2.0"),
        ("an iPad simulator", DeviceFacts(compiledFor: .ios, modelIdentifier: "iPad14,3", isiOSAppOnMac: false, isMacCatalystApp: false, osVersion: "16.4.0"), .ipados, "16.4.0"),
        ("an unknown iOS model", DeviceFacts(compiledFor: .ios, modelIdentifier: nil, isiOSAppOnMac: false, isMacCatalystApp: false, osVersion: "16.0.0"), .ios, "16.0.0"),
        ("a Mac Catalyst app", DeviceFacts(compiledFor: .ios, modelIdentifier: "Mac14,2", isiOSAppOnMac: false, isMacCatalystApp: true, osVersion: "14.2.0"), .macos, nil),
        ("an iPad app on an Apple silicon Mac", DeviceFacts(compiledFor: .ios, modelIdentifier: "iPad8,1", isiOSAppOnMac: true, isMacCatalystApp: false, osVersion: "17.2.0"), .macos, nil),
        ("a Mac", DeviceFacts(compiledFor: .macos, modelIdentifier: "Mac14,2", isiOSAppOnMac: false, isMacCatalystApp: false, osVersion: "14.2.1"), .macos, "14.2.1"),
        ("Apple Vision Pro", DeviceFacts(compiledFor: .visionos, modelIdentifier: "RealityDevice14,1", isiOSAppOnMac: false, isMacCatalystApp: false, osVersion: "1.1.0"), .visionos, "1.1.0"),
        ("Apple TV", DeviceFacts(compiledFor: .tvos, modelIdentifier: "AppleTV14,1", isiOSAppOnMac: false, isMacCatalystApp: false, osVersion: "17.0.0"), .tvos, "17.0.0"),
        ("Apple Watch", DeviceFacts(compiledFor: .watchos, modelIdentifier: "Watch6,1", isiOSAppOnMac: false, isMacCatalystApp: false, osVersion: "10.1.0"), .watchos, "10.1.0"),
        ("Linux (the kernel's version is not the OS release)", DeviceFacts(compiledFor: .linux, modelIdentifier: nil, isiOSAppOnMac: false, isMacCatalystApp: false, osVersion: "6.8.0"), .linux, nil),
    ]

    @Test("the detection table", arguments: 0..<11)
    func detection(_ index: Int) {
        let (label, facts, platform, version) = Self.table[index]
        let detected = DeviceDetection.detect(facts)
        #expect(detected.platform == platform, "\(label)")
        #expect(detected.osVersion == version, "\(label)")
    }

    @Test("an iPad-only model is compatible with an iPad and not with an iPhone")
    func ipadOnly() {
        let compatibility = ModelCompatibility(platforms: [.ipados])
        let ipad = DeviceDetection.detect(Self.table[1].1)
        let iphone = DeviceDetection.detect(Self.table[0].1)
        #expect(DeviceProfile(platform: ipad.platform, osVersion: ipad.osVersion).incompatibilities(with: compatibility).isEmpty)
        #expect(!DeviceProfile(platform: iphone.platform, osVersion: iphone.osVersion).incompatibilities(with: compatibility).isEmpty)
    }

    @Test("this machine: Linux, OS version not enforced")
    func thisMachine() {
        #if os(Linux)
        #expect(DeviceProfile.current.platform == .linux)
        #expect(DeviceProfile.current.osVersion == nil)
        #endif
        #expect(DeviceFacts.current.compiledFor == Platform.current)
    }
}

import Testing
import Foundation
import Manashiki
@testable import ManashikiSync

@Suite("Device profile")
struct DeviceProfileTests {
    let phone = DeviceProfile(platform: .ios, osVersion: "17.2", memoryMB: 6144)

    @Test("a model that fits has no incompatibilities")
    func fits() {
        #expect(phone.incompatibilities(with: ModelCompatibility(platforms: [.ios, .macos], minOs: "17.0", minRamMb: 4096, minDiskMb: 100), freeDiskMB: 200).isEmpty)
    }

    @Test("platform, OS version, memory and disk are each checked")
    func everyCheck() {
        let problems = phone.incompatibilities(with: ModelCompatibility(platforms: [.macos], minOs: "17.10", minRamMb: 8192, minDiskMb: 500), freeDiskMB: 100)
        #expect(problems.map(\.description) == [
            "supports macos, not ios",
            "needs OS 17.10 or later, the device has 17.2",
            "needs 8192 MiB of memory, the device has 6144 MiB",
            "needs 500 MiB of disk, 100 MiB are free on the store's volume",
        ])
    }

    @Test("unknown device facts are not checked")
    func unknownFacts() {
        let bare = DeviceProfile(platform: .linux)
        #expect(bare.incompatibilities(with: ModelCompatibility(platforms: [.linux], minOs: "99", minRamMb: 1 << 20, minDiskMb: 1 << 20)).isEmpty)
    }

    @Test("the current machine is described from ProcessInfo")
    func current() {
        let me = DeviceProfile.current
        #expect(me.platform == Platform.current)
        #if canImport(Darwin)
        #expect(ModelVersion(me.osVersion ?? "") != nil)
        #else
        // The kernel release is not an OS release: min_os is not enforced on Linux by default.
        #expect(me.osVersion == nil)
        #expect(me.incompatibilities(with: ModelCompatibility(platforms: [.linux], minOs: "16.0")).isEmpty)
        #endif
        #expect((me.memoryMB ?? 0) > 0)
    }
}
